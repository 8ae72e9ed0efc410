package locks

import (
	"context"
	"errors"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// A timed acquisition (every TryAcquire here) is bounded as a whole by its
// wait, connecting and retries included. Waiting for the lock (or a lease)
// ends when the wait passes, with no error. The requests under way then get
// waitSlack more to finish; past it they fail, and the acquisition returns
// an error that says what it was waiting for (a connection, a reply, a
// retry) and matches context.DeadlineExceeded. Its clean-up then gets its
// grace (cleanupBudget: at most maxCleanupGrace, none while disconnected),
// so a TryAcquire returns within wait + waitSlack + maxCleanupGrace.

// waitSlack is how long past its wait a timed acquisition lets the requests
// under way finish.
const waitSlack = time.Second

// errWaitOver is the cause of a timed acquisition's context once its wait
// and waitSlack have passed.
var errWaitOver = errors.New("the wait and its slack are over")

// boundWait returns the context of an acquisition that waits wait (none for
// wait < 0): ctx bounded by wait + waitSlack, with errWaitOver as the cause,
// a channel that fires once wait has passed, and the function that frees
// them.
func boundWait(ctx context.Context, wait time.Duration) (context.Context, <-chan time.Time, func()) {
	if wait < 0 {
		return ctx, nil, func() {}
	}
	t := time.NewTimer(wait)
	ctx, cancel := context.WithTimeoutCause(ctx, wait+waitSlack, errWaitOver)
	return ctx, t.C, func() { t.Stop(); cancel() }
}

// waitOver reports whether ctx, a context of boundWait, ended because its
// wait and slack passed rather than because its caller's ctx ended.
func waitOver(ctx context.Context) bool {
	return ctx.Err() != nil && errors.Is(context.Cause(ctx), errWaitOver)
}

// timedOut marks the error of a timed acquisition whose wait ended while it
// waited for something other than the lock. It matches
// context.DeadlineExceeded.
type timedOut struct{}

func (timedOut) Error() string        { return "timed out" }
func (timedOut) Is(target error) bool { return target == context.DeadlineExceeded }

// waitEnded returns the error of the timed acquisition of what (say,
// "acquire /a") whose wait ended while it waited for waitingFor, after err;
// an err that already reports it is returned as it is.
func waitEnded(what string, wait time.Duration, waitingFor string, err error) error {
	if errors.Is(err, timedOut{}) {
		return err
	}
	return errorf("%s: %w after %v waiting for %s: %w", what, timedOut{}, wait.Round(time.Millisecond), waitingFor, err)
}

// pending names what a request under way waits for: a connection while the
// client has none, else a reply.
func pending(c *framework.Client) string {
	if c.State().IsConnected() {
		return "a reply"
	}
	return "a connection"
}
