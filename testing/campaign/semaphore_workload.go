package campaign

import (
	"context"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// leaser takes one lease of a semaphore, waiting at most wait; ok is false
// (with a nil error) when the wait passed first.
type leaser interface {
	tryAcquire(ctx context.Context, wait time.Duration) (h leaseHold, ok bool, err error)
}

// leaseHold is one lease while it is held.
type leaseHold struct {
	lost    <-chan struct{}
	release func(context.Context) error
}

func newLeaser(kind LockKind, c *framework.Client, path string, maxLeases int) leaser {
	if kind == SemaphoreMutex {
		return semaphoreMutex{built(locks.NewInterProcessSemaphoreMutex(c, path))}
	}
	return semaphoreV2{built(locks.NewInterProcessSemaphoreV2(c, path, maxLeases))}
}

type semaphoreV2 struct {
	s *locks.InterProcessSemaphoreV2
}

func (s semaphoreV2) tryAcquire(ctx context.Context, wait time.Duration) (leaseHold, bool, error) {
	leases, err := s.s.TryAcquire(ctx, 1, wait)
	if err != nil || leases == nil {
		return leaseHold{}, false, err
	}
	return leaseHold{lost: leases[0].Lost(), release: leases[0].Close}, true, nil
}

type semaphoreMutex struct {
	m *locks.InterProcessSemaphoreMutex
}

func (s semaphoreMutex) tryAcquire(ctx context.Context, wait time.Duration) (leaseHold, bool, error) {
	ok, err := s.m.TryAcquire(ctx, wait)
	if err != nil || !ok {
		return leaseHold{}, false, err
	}
	return leaseHold{lost: s.m.Lost(), release: s.m.Release}, true, nil
}

// runLeases is a worker's loop over a semaphore: take a lease, read the
// counter and dwell under it, return it.
func (w *worker) runLeases(ctx context.Context) {
	for seq := 0; seq < maxIterations && ctx.Err() == nil; seq++ {
		h, ok, err := w.leaser.tryAcquire(ctx, w.acquireWait)
		if err != nil {
			// The connection is down or the attempt failed; try again soon.
			sleepCtx(ctx, 20*time.Millisecond)
			continue
		}
		if ok {
			w.section(ctx, Hold{Client: w.id, Seq: seq, Mode: Leased}, h.lost, w.read, h.release)
		}
	}
}
