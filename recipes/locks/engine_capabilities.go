package locks

import (
	"context"

	"github.com/zkcurator/zkcurator/framework"
)

// capabilities is what the lock engine does for one lock beyond calling its
// driver's three LockInternalsDriver methods. capabilitiesOf derives them from
// the driver once, when the lock is built; nothing else in the engine asks
// what a driver is.
type capabilities struct {
	// create makes a contender's node, and reports the fencing token its hold
	// will have when creation already knows it (0 otherwise): a downgrade's
	// read node keeps its write hold's token.
	create func(ctx context.Context, c *framework.Client, lockPath string, data []byte) (nodePath string, token int64, err error)
	// creationOrdered: nodes sort in the order of their creation
	// (CreationOrdered), so a deletion that the last listing decides hands
	// the lock over without a new listing.
	creationOrdered bool
	// releaseSignals: holds signal their release (engine_engine_release_signal.go), so no
	// hand-off in the queue costs a listing. A signal stands for "the lowest
	// node held and let go", which only StandardLockInternalsDriver's own
	// GetsTheLock guarantees with one lease: a driver that embeds it may grant
	// otherwise (the engine cannot tell whether it replaced GetsTheLock), so
	// it keeps the creation-ordered hand-off alone.
	releaseSignals bool
	// holderName is the child that a Holding driver's holder creates; "" for
	// drivers whose node order alone grants the lock.
	holderName string
	// yieldsToFair: a Holding driver that gives its claim back when it finds a
	// fair contender (UnfairLockInternalsDriver and drivers that embed it).
	yieldsToFair bool
	// releaser ends holds and attempts in place of the engine's delete
	// (Releaser); nil when the engine deletes the node itself.
	releaser Releaser
	// keeper looks after the nodes it creates (NodeKeeper); nil for
	// ephemeral nodes.
	keeper NodeKeeper
	// sessionBound: the session rule applies to the lock's nodes (see
	// package owned), which count only while the session that created them
	// is the client's current one. A NodeKeeper's nodes are the exception:
	// the TTL driver's persistent nodes are adopted by a later session.
	sessionBound bool
}

// tokenCreator is implemented by drivers whose creation may already know the
// fencing token of the hold (the read lock's, for a downgrade).
type tokenCreator interface {
	createsWithToken(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, int64, error)
}

// fairYielder is implemented by Holding drivers that let fair contenders go
// first (UnfairLockInternalsDriver, and drivers that embed it).
type fairYielder interface {
	yieldsToFair() bool
}

// validated is implemented by drivers whose fields can be invalid
// (UnfairLockInternalsDriver's SuffixDigits, and so drivers that embed it).
type validated interface {
	validate() error
}

// validateDriver reports a nil driver, or one whose fields are invalid, with
// an error matching ErrInvalidArgument.
func validateDriver(d LockInternalsDriver, lockPath string) error {
	if d == nil {
		return errorf("%w: nil driver for lock %q", ErrInvalidArgument, lockPath)
	}
	if v, ok := d.(validated); ok {
		return v.validate()
	}
	return nil
}

// capabilitiesOf derives a lock's capabilities from its driver and number of
// leases.
func capabilitiesOf(d LockInternalsDriver, maxLeases int) capabilities {
	var caps capabilities
	if t, ok := d.(tokenCreator); ok {
		caps.create = t.createsWithToken
	} else {
		caps.create = func(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, int64, error) {
			p, err := d.CreatesTheLock(ctx, c, lockPath, data)
			return p, 0, err
		}
	}
	if o, ok := d.(CreationOrdered); ok {
		caps.creationOrdered = o.NodesSortInCreationOrder()
	}
	switch d.(type) {
	case StandardLockInternalsDriver, *StandardLockInternalsDriver:
		caps.releaseSignals = maxLeases == 1
	}
	if h, ok := d.(Holding); ok {
		caps.holderName = h.HolderNodeName()
	}
	if y, ok := d.(fairYielder); ok {
		caps.yieldsToFair = y.yieldsToFair()
	}
	caps.releaser, _ = d.(Releaser)
	caps.keeper, _ = d.(NodeKeeper)
	caps.sessionBound = caps.keeper == nil
	return caps
}
