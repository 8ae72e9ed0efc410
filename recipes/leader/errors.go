package leader

import (
	"errors"

	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

var (
	// ErrInvalidArgument reports a bad argument to NewLeaderLatch or
	// NewLeaderSelector (a nil client, an empty id, a path that is invalid
	// or the root, a nil function or option, an unknown close mode), named
	// in the error.
	ErrInvalidArgument = errors.New("leader: invalid argument")

	// ErrClosed is returned by a call on a latch or selector that has been
	// closed, and is the cause of a term's context when Close ends the term.
	ErrClosed = errors.New("leader: closed")

	// ErrNotStarted is returned by a call that needs Start first.
	ErrNotStarted = errors.New("leader: not started (call Start first)")

	// ErrAlreadyStarted is returned by a second Start.
	ErrAlreadyStarted = errors.New("leader: already started")

	// ErrLeadershipLost is the cause (see context.Cause) of a term's context
	// cancelled because leadership was no longer certain: an error state of
	// the client's connection, a session other than the node's, or the
	// leader's node found deleted.
	ErrLeadershipLost = errors.New("leader: leadership lost")

	// ErrTermEnded is the cause of a LeaderSelector term's context once the
	// leader function has returned.
	ErrTermEnded = errors.New("leader: term ended")

	// ErrNoLeader is returned by Leader when no participant is queued.
	ErrNoLeader = errors.New("leader: no leader")
)

// lifeErrors are the refusals of a latch's or selector's Start and of calls
// outside its life.
var lifeErrors = lifecycle.Errors{AlreadyStarted: ErrAlreadyStarted, NotStarted: ErrNotStarted, Closed: ErrClosed}
