package locks

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// InterProcessMultiLock manages several locks as one: it acquires them in the
// order given and holds all or none. Acquiring the same locks in the same
// order everywhere avoids deadlocks between holders of overlapping sets.
type InterProcessMultiLock struct {
	locks []Lock
}

// NewInterProcessMultiLock returns a lock over locks, acquired in the order
// given and released in reverse. A nil lock among them is reported here,
// with an error matching ErrInvalidArgument.
func NewInterProcessMultiLock(locks ...Lock) (*InterProcessMultiLock, error) {
	for i, l := range locks {
		if isNil(l) {
			return nil, errorf("%w: NewInterProcessMultiLock: lock %d of %d is nil", ErrInvalidArgument, i, len(locks))
		}
	}
	return &InterProcessMultiLock{locks: append([]Lock(nil), locks...)}, nil
}

func isNil(l Lock) bool {
	if l == nil {
		return true
	}
	v := reflect.ValueOf(l)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Acquire acquires every lock in order. If one fails or ctx ends, the locks
// already taken are released in reverse order and the first error is
// returned (joined with any failure of that release). Once ctx is done the
// release returns promptly, even in a partition, and its deletes go on in
// the background.
func (ml *InterProcessMultiLock) Acquire(ctx context.Context) error {
	_, err := ml.acquire(ctx, -1)
	return err
}

// TryAcquire is Acquire that gives up, releasing the locks already taken,
// when all locks are not held within wait; it then reports false with a nil
// error. The wait bounds the whole acquisition, not each lock, connecting
// and retries included, as InterProcessMutex.TryAcquire's does.
func (ml *InterProcessMultiLock) TryAcquire(ctx context.Context, wait time.Duration) (bool, error) {
	if wait < 0 {
		return false, errorf("%w: multi-lock TryAcquire: negative wait %v", ErrInvalidArgument, wait)
	}
	return ml.acquire(ctx, wait)
}

func (ml *InterProcessMultiLock) acquire(ctx context.Context, wait time.Duration) (bool, error) {
	if ctx == nil {
		return false, errorf("%w: multi-lock: nil context", ErrInvalidArgument)
	}
	tw := newTimedWait(ctx, ml.client(), "multi-lock", wait)
	defer tw.stop()
	return ml.acquireWithin(tw)
}

// acquireWithin acquires every lock within tw, the bound of the call it is
// part of.
func (ml *InterProcessMultiLock) acquireWithin(tw *timedWait) (bool, error) {
	ctx := tw.ctx
	for i, l := range ml.locks {
		ok, err := acquireWithin(l, tw)
		if err == nil && ok {
			continue
		}
		// The releases share one clean-up context and get no grace of
		// their own; once ctx is done their deletes go on in the
		// background at once, since the failed lock's own clean-up has had
		// the grace: that alone is no failure to report.
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if ctx.Err() == nil {
			rctx, cancel = ml.cleanupContext(ctx)
		}
		rollback := releaseAll(rctx, ml.locks[:i], func(err error) bool {
			return ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled))
		})
		cancel()
		switch {
		case err != nil && tw.isOver():
			return false, joinErrors(tw.ended(fmt.Sprintf("lock %d", i), err), rollback)
		case err != nil:
			return false, joinErrors(errorf("multi-lock: lock %d: %w", i, err), rollback)
		}
		return false, rollback
	}
	return true, nil
}

// acquireWithin acquires l within tw: through tw itself for the locks of
// this package, else with its ctx and what is left of its wait.
func acquireWithin(l Lock, tw *timedWait) (bool, error) {
	if t, ok := l.(interface {
		acquireWithin(tw *timedWait) (bool, error)
	}); ok {
		return t.acquireWithin(tw)
	}
	if tw.deadline.IsZero() {
		err := l.Acquire(tw.ctx)
		return err == nil, err
	}
	return l.TryAcquire(tw.ctx, tw.remaining())
}

// Release releases every lock in reverse order, going on after a failure, and
// returns all failures joined (errors.Is matches ErrNotOwner when one of the
// locks was not held).
func (ml *InterProcessMultiLock) Release(ctx context.Context) error {
	rctx, cancel := ml.cleanupContext(ctx)
	defer cancel()
	return releaseAll(rctx, ml.locks, func(error) bool { return false })
}

// IsAcquiredInThisProcess reports whether every lock is held.
func (ml *InterProcessMultiLock) IsAcquiredInThisProcess() bool {
	for _, l := range ml.locks {
		if !l.IsAcquiredInThisProcess() {
			return false
		}
	}
	return true
}

// cleanupContext returns the context that the releases of the locks after a
// call made with ctx share (see cleanupContext), so that they take one grace
// between them rather than one each. With no lock of this package among the
// locks it is ctx.
func (ml *InterProcessMultiLock) cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	c := ml.client()
	if c == nil {
		return ctx, func() {}
	}
	return cleanupContext(ctx, c, 2*c.SessionTimeout(), withGrace)
}

// client returns the client of the first of the locks that is this
// package's, or nil when none is.
func (ml *InterProcessMultiLock) client() *framework.Client {
	for _, l := range ml.locks {
		if lc, ok := l.(interface{ client() *framework.Client }); ok {
			if c := lc.client(); c != nil {
				return c
			}
		}
	}
	return nil
}

// releaseAll releases locks in reverse order, within the clean-up of ctx
// (the locks of this package get no grace of their own), and joins the
// failures, but those that ignore picks.
func releaseAll(ctx context.Context, locks []Lock, ignore func(error) bool) error {
	var errs []error
	for i := len(locks) - 1; i >= 0; i-- {
		if err := releaseWithin(ctx, locks[i]); err != nil && !ignore(err) {
			errs = append(errs, errorf("multi-lock: release lock %d: %w", i, err))
		}
	}
	return joinErrors(errs...)
}

// releaseWithin releases l within a clean-up whose context is ctx: with no
// grace of its own for the locks of this package.
func releaseWithin(ctx context.Context, l Lock) error {
	if r, ok := l.(interface {
		release(ctx context.Context, g grace) error
	}); ok {
		return r.release(ctx, noGrace)
	}
	return l.Release(ctx)
}
