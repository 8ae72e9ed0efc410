package queue

import (
	"errors"

	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

var (
	// ErrInvalidArgument reports a bad argument, named in the error; nothing
	// was sent to a server.
	ErrInvalidArgument = errors.New("queue: invalid argument")

	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("queue: already started")

	// ErrNotStarted reports a call that needs Start first.
	ErrNotStarted = errors.New("queue: not started")

	// ErrClosed reports a call on a closed queue.
	ErrClosed = errors.New("queue: closed")

	// ErrOutcomeUnknown reports a write whose reply was lost: the server may
	// or may not have applied it, and it was not sent again, so that it is
	// never applied twice. The error also matches the attempt's own error:
	// zk.ErrConnectionClosed, or ctx's error when ctx ended with the request
	// under way.
	ErrOutcomeUnknown = errors.New("queue: outcome unknown (the reply was lost)")

	// ErrEmpty reports that a SimpleDistributedQueue had no item
	// (Curator's NoSuchElementException).
	ErrEmpty = errors.New("queue: empty")

	// ErrItemLost is the cause of a consumer's ctx when the client's
	// connection state means the item's lock can no longer be trusted; the
	// item is then left in the queue for the next consumer.
	ErrItemLost = errors.New("queue: item lock lost")
)

// lifeErrors are the refusals of a queue's Start and of calls outside its life.
var lifeErrors = lifecycle.Errors{AlreadyStarted: ErrAlreadyStarted, NotStarted: ErrNotStarted, Closed: ErrClosed}
