package locks

import (
	"context"

	"github.com/zkcurator/zkcurator/framework"
)

// handoff is how the lock passes from one contender to the next: what a
// waiter watches besides the node its driver names, what the deletion of that
// node means, and what ending a hold or an attempt sends. Each lock picks one
// from its driver when it is built (newHandoff):
//   - listAgain: every wake-up lists the children again, as in Curator;
//   - inOrder: nodes sort in creation order (CreationOrdered), so a deletion
//     that the waiter's last listing already decides hands it the lock
//     without a new listing;
//   - releaseSignals: inOrder, plus the release signals of a mutex under
//     StandardLockInternalsDriver itself (engine_engine_release_signal.go), so that no
//     hand-off in the queue costs a listing.
type handoff interface {
	// plan says what a waiter whose listing is contenders does while it
	// watches the child watched.
	plan(ctx context.Context, contenders []string, watched, ours string) watchPlan

	// release ends a hold (held) or abandons an attempt: it deletes our node
	// as the driver requires, a hold's within a clean-up of grace g. It
	// reports whether the release signals our waiter watched are fired (or
	// there were none); they are not when our node was gone or the
	// transaction failed.
	release(ctx context.Context, n lockNode, held bool, g grace) (fired bool, err error)

	// firable returns the release signals of n.inherited that the
	// abandonment of n may fire along with the deletion of n's node.
	firable(ctx context.Context, n lockNode) []string

	// fireLater fires, in the background and once that is safe, the release
	// signals that an acquisition's vanished nodes left armed.
	fireLater(signals []string)
}

// watchPlan is what a waiter watches, and what the watched node's deletion
// means.
type watchPlan struct {
	// onDeleted is the listing that decides once the watched node is
	// deleted; nil means: list the children again.
	onDeleted []string
	// watchOwn asks for a watch on our own node, which a waiter needs as soon
	// as it may hold on an event rather than on a listing.
	watchOwn bool
	// signal is the release signal to watch besides the watched node; "" for
	// none.
	signal string
}

// newHandoff picks the hand-off of a lock from its capabilities, once.
func newHandoff(li *lockInternals) handoff {
	switch {
	case li.caps.releaseSignals:
		return releaseSignals{inOrder{listAgain{li}}}
	case li.caps.creationOrdered:
		return inOrder{listAgain{li}}
	}
	return listAgain{li}
}

// listAgain is the hand-off of drivers whose nodes may sort in any order:
// every wake-up lists the children again.
type listAgain struct{ li *lockInternals }

func (listAgain) plan(context.Context, []string, string, string) watchPlan { return watchPlan{} }

func (h listAgain) release(ctx context.Context, n lockNode, held bool, g grace) (bool, error) {
	return true, h.li.deleteNode(ctx, n, held, g)
}

func (listAgain) firable(context.Context, lockNode) []string { return nil }

func (listAgain) fireLater([]string) {}

// inOrder is the hand-off of drivers whose nodes sort in creation order: a
// waiter that its last listing, without the watched node, already grants the
// lock holds on that node's deletion alone, as long as its own node exists.
// It releases as listAgain does.
type inOrder struct{ listAgain }

func (h inOrder) plan(ctx context.Context, contenders []string, watched, ours string) watchPlan {
	rest := h.handOffListing(ctx, contenders, watched, ours)
	return watchPlan{onDeleted: rest, watchOwn: rest != nil}
}

// handOffListing decides, while we start to wait, what the deletion of the
// watched node will mean. When nodes sort in creation order, no contender
// that arrives later can sort before us, so if our listing without the
// watched node already grants us the lock, that deletion alone hands the lock
// over and no new listing is needed: the listing to decide on then is
// returned, cut to the contenders up to us. Otherwise it returns nil, and the
// deletion means one new listing, which beats watching stale nodes one by one.
func (h inOrder) handOffListing(ctx context.Context, contenders []string, watched, ourName string) []string {
	rest := make([]string, 0, len(contenders))
	for _, name := range contenders {
		if name != watched {
			rest = append(rest, name)
		}
		if name == ourName {
			break
		}
	}
	pr, err := h.li.driver.GetsTheLock(ctx, h.li.client, rest, ourName, h.li.maxLeases)
	if err != nil || !pr.GetsTheLock {
		return nil
	}
	return rest
}

// deleteNode ends a hold or an attempt without release signals: the driver's
// Releaser when it has one; for Holding drivers, our node and, in the same
// transaction, the holder node whenever it is ours (releaseWithHolder);
// otherwise a guaranteed delete of our node, retried in the background after
// a failure.
func (li *lockInternals) deleteNode(ctx context.Context, n lockNode, held bool, g grace) error {
	if li.caps.releaser != nil {
		return li.caps.releaser.ReleasesTheLock(ctx, li.client, n.path)
	}
	if li.caps.holderName != "" {
		return li.releaseWithHolder(ctx, n, held, g)
	}
	return li.client.Delete(ctx, n.path, framework.Guaranteed(), framework.Quietly())
}
