package locks

import (
	"errors"
	"fmt"
	"slices"
	"strings"

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

// validateLock checks the client and path of a lock or semaphore.
func validateLock(c *framework.Client, path string) error {
	if c == nil {
		return errorf("%w: nil client for lock %q", ErrInvalidArgument, path)
	}
	return validateLockPath(path)
}

// validateLockPath checks the path of a lock or semaphore: a valid
// ZooKeeper path other than the root, under which contenders' nodes go.
func validateLockPath(p string) error {
	if p == "/" {
		return errorf("%w: lock path %q: the root cannot be a lock path", ErrInvalidArgument, p)
	}
	if err := framework.ValidatePath(p); err != nil {
		return errorf("%w: lock path: %w", ErrInvalidArgument, err)
	}
	return nil
}

// errPrefix starts the message of every error of this package, once.
const errPrefix = "locks: "

// errorf is fmt.Errorf for this package's errors: the message starts with
// errPrefix, and the prefixes of the errors it wraps are dropped, so that
// "locks: " appears once however deep the wrapping ("locks: create lock
// node under /a: lock lost: ..."). Each error of a join keeps its own.
func errorf(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	msg := err.Error()
	short := errPrefix + strings.ReplaceAll(strings.TrimPrefix(msg, errPrefix), ": "+errPrefix, ": ")
	if short == msg {
		return err
	}
	return &prefixedError{msg: short, err: err}
}

// prefixedError is an error of errorf whose message was shortened.
type prefixedError struct {
	msg string
	err error
}

func (e *prefixedError) Error() string { return e.msg }
func (e *prefixedError) Unwrap() error { return e.err }

// sessionGone reports that the node at path belongs to a session the client
// no longer has. It matches errVanished, so the attempt deletes the node and
// queues again on the current session as far as the retry policy allows.
func sessionGone(path string, owner int64) error {
	return errorf("%w: %s belongs to session 0x%x, which the client no longer has", errVanished, path, owner)
}

// joinErrors is errors.Join on one line: the messages of the errors that are
// not nil, separated by "; ". It returns nil when all are.
func joinErrors(errs ...error) error {
	errs = slices.DeleteFunc(slices.Clone(errs), func(err error) bool { return err == nil })
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return joined(errs)
}

// joined is the error of joinErrors.
type joined []error

func (j joined) Error() string {
	msgs := make([]string, len(j))
	for i, err := range j {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (j joined) Unwrap() []error { return j }
