package locks

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"
)

// Release signals carry the one-step hand-off down the whole queue of a fair
// lock. A contender that held the lock and lets it go creates and deletes the
// node "<its node>.released" in the same transaction that deletes its own
// node, so the signal is never seen by a listing, only by a watch. A waiter
// watches its predecessor's signal path besides the predecessor itself. The
// signal can only mean that the predecessor held the lock: then every node
// before the predecessor was already gone, no later contender sorts before
// the waiter, and the waiter holds without listing the children again, as
// long as its own node still exists (watchOwn). Any other end of the
// predecessor (an abandoned attempt, an expired session, a release by Curator
// in Java) deletes it without a signal, and the waiter lists the children
// once, as before.
//
// A hold granted by a listing that ends with our node needs no signal: a
// waiter that lists after it finds us the lowest and holds on our deletion
// alone, and one that listed before it would have shown up in it, after us.
// So an uncontended cycle deletes its node plainly, and only holds that
// waited pay for the signal.
//
// A signal watch whose predecessor ended without a signal stays armed on the
// server. Its waiter fires it itself, in the transaction that deletes its own
// node: while that node exists no other live contender can have the same
// predecessor, because any contender that listed the children after our
// listing found our node between them.
const releaseSignalSuffix = ".released"

// releaseSignal returns the signal path of the lock node at nodePath.
func releaseSignal(nodePath string) string { return nodePath + releaseSignalSuffix }

// signalsRelease reports whether this lock's holds signal their release: one
// lease under StandardLockInternalsDriver itself. A signal stands for "the
// lowest node held and let go", which is the standard grant rule; a driver
// that embeds the standard one may grant otherwise, so it keeps the listing
// after every wake-up that its predecessor's deletion alone does not decide.
func (li *lockInternals) signalsRelease() bool {
	switch li.driver.(type) {
	case StandardLockInternalsDriver, *StandardLockInternalsDriver:
		return li.maxLeases == 1
	}
	return false
}

// deleteSignalling deletes our node in one transaction that first fires the
// signals we watched and, when we held the lock and a waiter may be watching,
// our own. It reports false when the transaction failed for another reason
// than our node being gone already; the caller then deletes the node plainly,
// without signals.
func (li *lockInternals) deleteSignalling(ctx context.Context, n lockNode, held bool) bool {
	fire := n.signals
	if held && !n.unwatched {
		fire = append(fire[:len(fire):len(fire)], releaseSignal(n.path))
	}
	ops := make([]any, 0, 2*len(fire)+1)
	seen := make(map[string]bool, len(fire))
	for _, p := range fire {
		if !seen[p] {
			seen[p] = true
			ops = append(ops, &zk.CreateRequest{Path: p, Data: []byte{}}, &zk.DeleteRequest{Path: p, Version: -1})
		}
	}
	ops = append(ops, &zk.DeleteRequest{Path: n.path, Version: -1})
	_, err := li.client.Transaction(ctx, ops...)
	return err == nil || errors.Is(err, zk.ErrNoNode)
}
