package locks

import "errors"

var (
	// ErrNotOwner is returned by Release when the handle does not hold the lock.
	ErrNotOwner = errors.New("locks: you do not own the lock")

	// ErrUpgrade is returned when a handle that holds only the read lock of an
	// InterProcessReadWriteLock asks for its write lock. Curator waits forever
	// in that case; zkcurator refuses at once.
	ErrUpgrade = errors.New("locks: cannot upgrade a held read lock to the write lock")

	// ErrLockLost reports that a lock node disappeared while it was needed:
	// the session that owned it expired or someone deleted it.
	ErrLockLost = errors.New("locks: lock lost")
)
