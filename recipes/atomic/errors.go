package atomic

import (
	"errors"

	"github.com/zkcurator/zkcurator/recipes/internal/versioned"
)

var (
	// ErrOutcomeUnknown reports an update whose write may or may not have
	// applied (its reply was lost); it is never retried by this package.
	ErrOutcomeUnknown = versioned.ErrOutcomeUnknown

	// ErrBadValue reports a node whose data cannot be the value, such as a
	// long counter holding bytes of a length other than 8.
	ErrBadValue = errors.New("atomic: node data is not a valid value")

	// ErrInvalidArgument reports a bad argument to a constructor or option,
	// named in the error.
	ErrInvalidArgument = errors.New("atomic: invalid argument")
)
