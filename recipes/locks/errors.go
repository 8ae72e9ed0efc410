package locks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkcurator/zkcurator/framework"
)

var (
	// ErrNotOwner is returned by Release when the handle does not hold the lock.
	ErrNotOwner error = &lockError{msg: "you do not own the lock"}

	// ErrUpgrade is returned when a handle that holds only the read lock of an
	// InterProcessReadWriteLock asks for its write lock. Curator waits forever
	// in that case; zkcurator refuses at once.
	ErrUpgrade error = &lockError{msg: "cannot upgrade a held read lock to the write lock"}

	// ErrLockLost reports that a lock node disappeared while it was needed:
	// the session that owned it expired or someone deleted it.
	ErrLockLost error = &lockError{msg: "lock lost"}

	// ErrInvalidArgument reports a bad argument (a nil client, an invalid or
	// root lock path, a bad limit or wait), named in the error that wraps it.
	ErrInvalidArgument error = &lockError{msg: "invalid argument"}

	// ErrNotContender is returned by AttemptRevoke for a node that is not a
	// lock, lease or leader contender's; the node is left untouched.
	ErrNotContender error = &lockError{msg: "not a contender node"}
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

// lockError is an error of this package. It keeps its message without the
// prefix, which Error adds: an error of this package that wraps another one
// takes that one's message without its prefix (bare), so "locks: " comes
// once, at the front of whatever error a caller reads, however deep the
// wrapping ("locks: create lock node under /a: lock lost: ...").
type lockError struct {
	msg  string // without errPrefix
	errs []error
}

func (e *lockError) Error() string       { return errPrefix + e.msg }
func (e *lockError) Unwrap() []error     { return e.errs }
func (e *lockError) bareMessage() string { return e.msg }

// bareMessager is implemented by the errors of this package: their message
// without the prefix.
type bareMessager interface{ bareMessage() string }

// bareMessage is err's message, without the prefix when err is this
// package's.
func bareMessage(err error) string {
	if b, ok := err.(bareMessager); ok {
		return b.bareMessage()
	}
	return err.Error()
}

// bare is an error wrapped by errorf: its message is the wrapped error's
// without the prefix.
type bare struct{ err error }

func (b bare) Error() string { return bareMessage(b.err) }
func (b bare) Unwrap() error { return b.err }

// errorf is fmt.Errorf for this package's errors (without the prefix in
// format): the error it returns is a lockError, and the errors among args,
// %w or not, lend it their bare messages.
func errorf(format string, args ...any) error {
	inner := make([]any, len(args))
	for i, a := range args {
		if err, ok := a.(error); ok && err != nil {
			a = bare{err}
		}
		inner[i] = a
	}
	err := fmt.Errorf(format, inner...)
	return &lockError{msg: err.Error(), errs: []error{err}}
}

// sessionGone reports that the node at path belongs to a session the client
// no longer has. It matches errVanished, so the attempt deletes the node and
// queues again on the current session as far as the retry policy allows.
func sessionGone(path string, owner framework.Session) error {
	return errorf("%w: %s belongs to session 0x%x, which the client no longer has", errVanished, path, owner.ID())
}

// joinErrors is errors.Join on one line: the messages of the errors that are
// not nil, separated by "; ", each with its own prefix (and, within another
// error of this package, each without). It returns nil when all are.
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

func (j joined) bareMessage() string {
	msgs := make([]string, len(j))
	for i, err := range j {
		msgs[i] = bareMessage(err)
	}
	return strings.Join(msgs, "; ")
}
