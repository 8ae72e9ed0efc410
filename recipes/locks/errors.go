package locks

import (
	"errors"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

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

	// ErrInvalidArgument reports a bad argument (a nil client, an invalid or
	// root lock path, a bad limit or wait), named in the error that wraps it.
	ErrInvalidArgument = errors.New("locks: invalid argument")

	// ErrNotContender is returned by AttemptRevoke for a node that is not a
	// lock, lease or leader contender's; the node is left untouched.
	ErrNotContender = errors.New("locks: not a contender node")
)

// validateLockPath checks the path of a lock or semaphore: a valid
// ZooKeeper path other than the root, under which contenders' nodes go.
func validateLockPath(p string) error {
	if p == "/" {
		return fmt.Errorf("%w: lock path %q: the root cannot be a lock path", ErrInvalidArgument, p)
	}
	if err := framework.ValidatePath(p); err != nil {
		return fmt.Errorf("%w: lock path: %w", ErrInvalidArgument, err)
	}
	return nil
}
