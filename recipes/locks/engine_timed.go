package locks

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// A call that waits (Acquire, and every TryAcquire here) is bounded by one
// value, its timedWait, which every level of the call shares: the
// multi-lock, the semaphore, the mutex and the engine. Its wait ends at its
// deadline: waiting for the lock (or a lease) then ends with no error, and
// so does waiting for a connection or between retries, with an error that
// says so. Only a request already on a live connection gets a grace to
// bring its reply (see timedWait.ctx); a clean-up goes on in the background
// whatever it still has to do.

// replyGrace is how long past its deadline a call on a live connection lets
// its requests bring their replies: a wait of zero still makes one attempt,
// a few requests long.
const replyGrace = time.Second

// errWaitOver is the cause of a timed wait's context once its deadline has
// passed.
var errWaitOver = errors.New("the wait is over")

// timedWait bounds one call that waits.
type timedWait struct {
	// ctx is what the call's requests run with: the caller's ctx, ended
	// too once the deadline has passed and no request can still bring a
	// reply: at the deadline when the client has no connection, else when
	// it loses it or replyGrace later.
	ctx context.Context
	// deadline is when the wait ends; zero when the call waits as long as
	// the caller's ctx allows.
	deadline time.Time
	// over is closed at the deadline; nil without one.
	over chan struct{}
	// what names the call in its errors ("acquire /a"), and wait is the
	// caller's wait, as its errors state it.
	what string
	wait time.Duration

	mu      sync.Mutex
	stopped bool
	release []func() // frees the timers and listener of the grace
}

// newTimedWait returns the bound of the call what of c made with ctx that
// waits wait; wait < 0 waits as long as ctx allows. Its stop must be called
// when the call returns.
func newTimedWait(ctx context.Context, c *framework.Client, what string, wait time.Duration) *timedWait {
	tw := &timedWait{ctx: ctx, what: what, wait: wait}
	if wait < 0 {
		return tw
	}
	tw.deadline = time.Now().Add(wait)
	tw.over = make(chan struct{})
	rctx, cancel := context.WithCancelCause(ctx)
	tw.ctx = rctx
	end := func() { cancel(errWaitOver) }
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.release = append(tw.release, func() { cancel(context.Canceled) })
	timer := time.AfterFunc(wait, func() {
		close(tw.over)
		tw.mu.Lock()
		defer tw.mu.Unlock()
		if tw.stopped {
			return
		}
		if c == nil || !c.State().IsConnected() {
			end()
			return
		}
		stopListen := c.Listen(func(s framework.ConnectionState) {
			if !s.IsConnected() {
				end()
			}
		})
		grace := time.AfterFunc(replyGrace, end)
		tw.release = append(tw.release, stopListen, func() { grace.Stop() })
	})
	tw.release = append(tw.release, func() { timer.Stop() })
	return tw
}

// stop frees what the wait holds.
func (tw *timedWait) stop() {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.stopped = true
	for _, f := range tw.release {
		f()
	}
	tw.release = nil
}

// isOver reports whether the deadline has passed.
func (tw *timedWait) isOver() bool {
	select {
	case <-tw.over:
		return true
	default:
		return false
	}
}

// ctxErr is what a wait for the lock reports once ctx is done: nil when
// the deadline has passed (running out of time waiting for the lock is no
// error), else ctx's error.
func (tw *timedWait) ctxErr() error {
	if tw.isOver() {
		return nil
	}
	return tw.ctx.Err()
}

// remaining is what is left of the wait: -1 without a deadline.
func (tw *timedWait) remaining() time.Duration {
	if tw.deadline.IsZero() {
		return -1
	}
	return max(0, time.Until(tw.deadline))
}

// ended returns the error of the call whose wait ended while it waited for
// waitingFor (a connection, a reply, a retry) rather than for the lock,
// after err. When err wraps such an error already (a level below reported
// it), that error is the call's: it names the call, and the levels between
// add nothing.
func (tw *timedWait) ended(waitingFor string, err error) error {
	var e *waitEndedError
	if errors.As(err, &e) {
		return e
	}
	return &waitEndedError{what: tw.what, wait: tw.wait, waitingFor: waitingFor, err: err}
}

// waitEndedError is the error of a call whose wait ended while it waited for
// something else than the lock. It matches context.DeadlineExceeded, and
// what err matches but the cancellation that ended the wait (and
// framework.ErrNotConnected when err is a wait for a connection). Its
// message states the caller's wait, once: it leaves out err's message when
// that only says how long a request waited.
type waitEndedError struct {
	what       string
	wait       time.Duration
	waitingFor string
	err        error
}

func (e *waitEndedError) Error() string { return errPrefix + e.bareMessage() }

func (e *waitEndedError) bareMessage() string {
	msg := e.what + ": timed out after " + e.wait.String() + " waiting for " + e.waitingFor
	if e.err != nil && !e.onlyWaited() {
		msg += " (" + oneLine(bareMessage(e.err)) + ")"
	}
	return msg
}

// onlyWaited reports whether err is no more than the end of a wait: a
// request's wait for a connection, or a context's end.
func (e *waitEndedError) onlyWaited() bool {
	return errors.Is(e.err, framework.ErrNotConnected) || errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)
}

func (e *waitEndedError) Unwrap() []error {
	errs := []error{context.DeadlineExceeded}
	// A wait for a connection that ended before any request reported one
	// (a wait of zero, say) is no less a wait for a connection.
	if errors.Is(e.err, framework.ErrNotConnected) || e.waitingFor == waitingForConnection {
		errs = append(errs, framework.ErrNotConnected)
	}
	if e.err != nil && !e.onlyWaited() {
		errs = append(errs, e.err)
	}
	return errs
}

// oneLine puts a message that spans lines (errors.Join's) on one.
func oneLine(msg string) string {
	return strings.ReplaceAll(msg, "\n", "; ")
}

// waitingForConnection is what a call waits for while its client has no
// connection.
const waitingForConnection = "a connection"

// pending names what a request under way waits for: a connection while the
// client has none, else a reply.
func pending(c *framework.Client) string {
	if c.State().IsConnected() {
		return "a reply"
	}
	return waitingForConnection
}
