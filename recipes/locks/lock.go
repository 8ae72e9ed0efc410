package locks

import (
	"context"
	"time"
)

// Lock is what the locks of this package have in common, Curator's
// InterProcessLock: *InterProcessMutex (including the two locks of an
// InterProcessReadWriteLock), *InterProcessSemaphoreMutex and
// *InterProcessMultiLock implement it.
type Lock interface {
	// Acquire blocks until the lock is held or ctx is done.
	Acquire(ctx context.Context) error
	// TryAcquire is Acquire that gives up after wait, reporting false.
	TryAcquire(ctx context.Context, wait time.Duration) (bool, error)
	// Release releases the lock; ErrNotOwner when it is not held.
	Release(ctx context.Context) error
	// IsAcquiredInThisProcess reports whether this handle holds the lock.
	IsAcquiredInThisProcess() bool
}

var (
	_ Lock = (*InterProcessMutex)(nil)
	_ Lock = (*InterProcessSemaphoreMutex)(nil)
	_ Lock = (*InterProcessMultiLock)(nil)
)
