package nodes

import (
	"errors"

	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

var (
	// ErrInvalidArgument reports a bad argument to a constructor or option,
	// named in the error.
	ErrInvalidArgument = errors.New("nodes: invalid argument")

	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("nodes: already started")

	// ErrNotStarted reports a wait on a recipe that was never started.
	ErrNotStarted = errors.New("nodes: not started")

	// ErrClosed reports a call after Close.
	ErrClosed = errors.New("nodes: closed")
)

// lifeErrors are the package's refusals of a call out of Start/Close order.
var lifeErrors = lifecycle.Errors{AlreadyStarted: ErrAlreadyStarted, NotStarted: ErrNotStarted, Closed: ErrClosed}
