package locks

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// InterProcessSemaphoreMutex is a mutual exclusion lock that is not
// re-entrant, Curator's InterProcessSemaphoreMutex: an InterProcessSemaphoreV2
// with a single lease. Like a sync.Mutex, a second Acquire through the same
// handle waits until the lock is released, and any goroutine may release it.
//
// It uses the semaphore's nodes ("<path>/locks" and "<path>/leases"), not an
// InterProcessMutex's, so it does not exclude an InterProcessMutex on the
// same path, exactly as in Curator.
type InterProcessSemaphoreMutex struct {
	sem *InterProcessSemaphoreV2

	mu    sync.Mutex
	lease *Lease
}

// NewInterProcessSemaphoreMutex returns a non-re-entrant mutex on path. It
// makes no network call; a nil client or an invalid path is reported here,
// with an error matching ErrInvalidArgument.
func NewInterProcessSemaphoreMutex(c *framework.Client, path string) (*InterProcessSemaphoreMutex, error) {
	sem, err := NewInterProcessSemaphoreV2(c, path, 1)
	if err != nil {
		return nil, err
	}
	return &InterProcessSemaphoreMutex{sem: sem}, nil
}

// Acquire blocks until the lock is held or ctx is done. A cancelled Acquire
// leaves no node behind.
func (m *InterProcessSemaphoreMutex) Acquire(ctx context.Context) error {
	lease, err := m.sem.Acquire(ctx)
	if err != nil {
		return err
	}
	m.setLease(ctx, lease)
	return nil
}

// TryAcquire is Acquire that gives up after wait and then reports false with
// a nil error; a wait of zero makes a single attempt.
func (m *InterProcessSemaphoreMutex) TryAcquire(ctx context.Context, wait time.Duration) (bool, error) {
	leases, err := m.sem.TryAcquire(ctx, 1, wait)
	if err != nil || leases == nil {
		return false, err
	}
	m.setLease(ctx, leases[0])
	return true, nil
}

// acquireWithin acquires the lock within tw, the bound of the call it is
// part of (a multi-lock's).
func (m *InterProcessSemaphoreMutex) acquireWithin(tw *timedWait) (bool, error) {
	leases, err := m.sem.acquireWithin(tw, 1)
	if err != nil || leases == nil {
		return false, err
	}
	m.setLease(tw.ctx, leases[0])
	return true, nil
}

// setLease makes l the handle's lease. A lease it replaces was lost before
// this acquisition (else l could not have been granted): it is closed, so
// that its listener, its count and any node of it go.
func (m *InterProcessSemaphoreMutex) setLease(ctx context.Context, l *Lease) {
	m.mu.Lock()
	old := m.lease
	m.lease = l
	m.mu.Unlock()
	if old == nil {
		return
	}
	c := m.sem.client
	ctx, cancel := cleanupContext(ctx, c, c.SessionTimeout(), withGrace)
	defer cancel()
	if err := old.Close(ctx); err != nil {
		c.Logger().Debug("returning a lost lease failed; deleting it in the background", zap.Error(err))
	}
}

// Release releases the lock, from any goroutine. It returns an error matching
// ErrNotOwner when this handle does not hold the lock.
func (m *InterProcessSemaphoreMutex) Release(ctx context.Context) error {
	m.mu.Lock()
	lease := m.lease
	m.lease = nil
	m.mu.Unlock()
	if lease == nil {
		return errorf("%w: %s", ErrNotOwner, m.sem.path)
	}
	return lease.Close(ctx)
}

// Lost returns the held lease's Lost channel (see Lease.Lost): it is closed
// when holding the lock is no longer certain, and when the lock is released.
// When this handle does not hold the lock it returns a closed channel.
func (m *InterProcessSemaphoreMutex) Lost() <-chan struct{} {
	m.mu.Lock()
	lease := m.lease
	m.mu.Unlock()
	return lease.Lost()
}

// IsAcquiredInThisProcess reports whether this handle holds the lock.
func (m *InterProcessSemaphoreMutex) IsAcquiredInThisProcess() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lease != nil
}

// client is the lock's client (for a multi-lock's rollback).
func (m *InterProcessSemaphoreMutex) client() *framework.Client { return m.sem.client }
