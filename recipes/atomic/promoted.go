package atomic

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// promotedSlack is how long past MaxLockTime the promoted phase may run: the
// lock gives its node back when its own wait runs out, which takes a round
// trip.
const promotedSlack = 500 * time.Millisecond

// releaseTimeout bounds the release of the promoted lock once it goes on in
// the background.
const releaseTimeout = 10 * time.Second

// underLock runs the promoted tries while holding the lock. With MaxLockTime
// set, the whole phase ends within MaxLockTime plus promotedSlack, whatever
// the connection does. The mutex handle is per call: handles are reentrant,
// and concurrent callers must exclude each other.
func (v *DistributedAtomicValue) underLock(ctx context.Context, res *AtomicValue[[]byte], mk makeFunc) error {
	p := v.opts.promoted
	m, err := locks.NewInterProcessMutex(v.c, p.LockPath)
	if err != nil {
		return err
	}
	var held bool
	if p.MaxLockTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.MaxLockTime+promotedSlack)
		defer cancel()
		held, err = m.TryAcquire(ctx, p.MaxLockTime)
	} else {
		held, err = true, m.Acquire(ctx)
	}
	if err != nil {
		bound := ""
		if p.MaxLockTime > 0 {
			bound = fmt.Sprintf(" (MaxLockTime %v)", p.MaxLockTime)
		}
		return fmt.Errorf("atomic: update %s: waiting for the promoted lock %s%s: %w", v.path, p.LockPath, bound, err)
	}
	if !held {
		return nil // its wait ran out: the update did not apply
	}
	defer v.release(ctx, m)
	return v.tries(ctx, res, p.RetryPolicy, mk, &res.Stats.PromotedLockTries)
}

// release gives the promoted lock back, waiting for that while ctx lasts; a
// release that outlasts ctx (a partition) goes on in the background, bounded
// by releaseTimeout, and the lock's node goes with the session at the latest.
func (v *DistributedAtomicValue) release(ctx context.Context, m *locks.InterProcessMutex) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		defer cancel()
		if err := m.Release(rctx); err != nil {
			v.c.Logger().Sugar().Warnw("atomic: releasing the promoted lock failed", "lockPath", v.opts.promoted.LockPath, "error", err)
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}
