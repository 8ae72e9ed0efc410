package discovery

import (
	"errors"

	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

var (
	// ErrInvalidArgument reports a bad argument to a constructor, an option
	// or a call, named in the error, found before any network call.
	ErrInvalidArgument = errors.New("discovery: invalid argument")
	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("discovery: already started")
	// ErrNotStarted reports a call that needs Start first.
	ErrNotStarted = errors.New("discovery: not started (call Start first)")
	// ErrClosed reports a call on a closed ServiceDiscovery, ServiceCache or
	// ServiceProvider.
	ErrClosed = errors.New("discovery: closed")
	// ErrNotRegistered reports UpdateService of an instance this
	// ServiceDiscovery has not registered.
	ErrNotRegistered = errors.New("discovery: service not registered")
	// ErrBadInstance reports a node whose data is not a service instance in
	// Curator's JSON format.
	ErrBadInstance = errors.New("discovery: bad instance data")
)

// lifeErrors are the refusals of a Start and of calls outside a recipe's life.
var lifeErrors = lifecycle.Errors{AlreadyStarted: ErrAlreadyStarted, NotStarted: ErrNotStarted, Closed: ErrClosed}
