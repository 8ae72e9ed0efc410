package cache

import (
	"errors"

	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

var (
	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("cache: already started")
	// ErrClosed reports a Start after Close, or one that Close ended.
	ErrClosed = errors.New("cache: closed")
	// ErrInvalidArgument reports a bad argument to a constructor or option,
	// named in the error.
	ErrInvalidArgument = errors.New("cache: invalid argument")
)

// lifeErrors are the refusals of a cache's Start. No call of a cache needs
// Start first (reads before it find nothing), so none is NotStarted.
var lifeErrors = lifecycle.Errors{AlreadyStarted: ErrAlreadyStarted, Closed: ErrClosed}
