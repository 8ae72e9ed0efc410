package shared

import (
	"errors"

	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
	"github.com/zkcurator/zkcurator/recipes/internal/versioned"
)

var (
	// ErrOutcomeUnknown reports a write whose reply was lost: it may or may
	// not have applied.
	ErrOutcomeUnknown = versioned.ErrOutcomeUnknown

	// ErrBadValue reports node data that is not a valid value, such as a
	// count that is not 4 bytes long.
	ErrBadValue = errors.New("shared: node data is not a valid value")

	// ErrInvalidArgument reports a bad argument to a constructor, named in
	// the error.
	ErrInvalidArgument = errors.New("shared: invalid argument")

	// ErrNotStarted reports a call that needs Start first.
	ErrNotStarted = errors.New("shared: not started")

	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("shared: already started")

	// ErrClosed reports a call after Close.
	ErrClosed = errors.New("shared: closed")
)

// lifeErrors are the refusals of a value's Start and of calls outside its life.
var lifeErrors = lifecycle.Errors{AlreadyStarted: ErrAlreadyStarted, NotStarted: ErrNotStarted, Closed: ErrClosed}
