package locks

import (
	"context"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// Clean-up (deleting the node of an attempt that did not hold, returning the
// leases of a failed acquisition, releasing a hold) must run even when the
// caller's ctx has ended, but must not keep a caller who gave up waiting: in
// a partition it would wait for the connection. So it runs with a context of
// its own (cleanupContext) that is bounded by the caller's deadline and, once
// the caller's ctx is done, by a short grace that is zero while the client is
// disconnected. Whatever does not finish in time goes on in the background:
// the deletes are guaranteed (framework.Guaranteed), holder nodes are
// released later (releaseHoldingLater) and release signals fired later
// (handoff.fireLater). A clean-up within a clean-up (the releases of a
// multi-lock's rollback, the lock a semaphore's clean-up releases) gets no
// grace of its own: the outer clean-up's context bounds them all.

// maxCleanupGrace bounds the grace of a clean-up whose caller's ctx is done.
const maxCleanupGrace = time.Second

// grace tells a clean-up whether it gets a grace of its own once its
// caller's ctx is done: one within another clean-up gets none (noGrace),
// since the outer clean-up's context bounds them all.
type grace bool

const (
	withGrace grace = true
	noGrace   grace = false
)

// cleanupContext returns the context of a clean-up after a call made with
// ctx: ctx's values without its cancellation, bounded by limit (see
// cleanupBudget) and, should ctx end while the clean-up runs, by the grace
// that is left to a caller who gave up (none with noGrace).
func cleanupContext(ctx context.Context, c *framework.Client, limit time.Duration, g grace) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupBudget(ctx, c, limit, g))
	if ctx.Err() != nil {
		return cctx, cancel
	}
	stop := context.AfterFunc(ctx, func() {
		grace := time.NewTimer(cleanupBudget(ctx, c, limit, g))
		defer grace.Stop()
		select {
		case <-grace.C:
			cancel()
		case <-cctx.Done():
		}
	})
	return cctx, func() { stop(); cancel() }
}

// cleanupBudget is how long a clean-up after a call made with ctx may take:
// limit while ctx runs without a deadline, up to ctx's deadline when it has
// one, and once ctx is done only a grace (cleanupGrace, none while the
// client is disconnected, none with noGrace). A deadline about to pass still
// leaves the grace.
func cleanupBudget(ctx context.Context, c *framework.Client, limit time.Duration, g grace) time.Duration {
	var grace time.Duration
	if g == withGrace && c.State().IsConnected() {
		grace = cleanupGrace(c)
	}
	if ctx.Err() != nil {
		return grace
	}
	if d, ok := ctx.Deadline(); ok {
		return min(limit, max(time.Until(d), grace))
	}
	return limit
}

// cleanupGrace is the grace of a request on c's live connection whose caller
// gave up: an eighth of the session timeout, at most maxCleanupGrace.
func cleanupGrace(c *framework.Client) time.Duration {
	return min(c.SessionTimeout()/8, maxCleanupGrace)
}
