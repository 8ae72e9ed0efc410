package locks

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
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
// listing found our node between them. A waiter whose node vanished queues
// again with a new node, which inherits the old node's armed signals: a hold
// fires them in its release, an abandonment those that no contender
// separates from its new node (firable), and fireLater the rest, once no
// contender sorts before their predecessors.
const releaseSignalSuffix = ".released"

// releaseSignal returns the signal path of the lock node at nodePath.
func releaseSignal(nodePath string) string { return nodePath + releaseSignalSuffix }

// releaseSignals is the hand-off of a mutex under StandardLockInternalsDriver
// itself: inOrder, plus release signals.
type releaseSignals struct{ inOrder }

// plan watches our own node always, since a signal may hand us the lock, and
// the watched node's release signal whenever its deletion alone would not.
func (h releaseSignals) plan(ctx context.Context, contenders []string, watched, ours string) watchPlan {
	p := watchPlan{onDeleted: h.handOffListing(ctx, contenders, watched, ours), watchOwn: true}
	if p.onDeleted == nil {
		p.signal = releaseSignal(framework.JoinPath(h.li.basePath, watched))
	}
	return p
}

// release deletes our node in one transaction that fires the signals our
// waiter watched and, for a hold, those it inherited and its own
// (deleteSignalling); with nothing to fire, or when that transaction fails
// for another reason than our node being gone, it deletes our node plainly.
// A hold whose transaction failed hands the signals it watched and inherited
// to fireLater, as an abandoned attempt does, so that no watch outlives the
// acquisition.
func (h releaseSignals) release(ctx context.Context, n lockNode, held bool, g grace) (fired bool, err error) {
	if len(n.signals) == 0 && (!held || n.unwatched && len(n.inherited) == 0) {
		return true, h.li.deleteNode(ctx, n, held, g) // nothing to fire
	}
	sctx, cancel := ctx, context.CancelFunc(func() {})
	if held {
		// A holder whose ctx is done still fires its signals, within
		// cleanupBudget (an abandoning caller's ctx is abandon's own, and
		// what it cannot fire goes to fireLater).
		sctx, cancel = cleanupContext(ctx, h.li.client, h.li.client.SessionTimeout(), g)
	}
	err = h.deleteSignalling(sctx, n, held)
	cancel()
	if err == nil {
		return true, nil
	}
	if held && n.owner.IsCurrent() { // else the watches died with their session
		if armed := append(slices.Clip(n.signals), n.inherited...); len(armed) > 0 {
			h.fireLater(armed)
		}
	}
	if errors.Is(err, zk.ErrNoNode) {
		return false, nil
	}
	return len(n.signals) == 0, h.li.deleteNode(ctx, n, held, g)
}

// deleteSignalling deletes our node in one transaction that first fires the
// signals we watched and, when we held the lock, the signals inherited from
// this acquisition's vanished nodes and, when a waiter may be watching, our
// own. An error matching zk.ErrNoNode means our node was gone already and
// nothing was fired; after any other error the caller deletes the node
// plainly.
func (h releaseSignals) deleteSignalling(ctx context.Context, n lockNode, held bool) error {
	fire := n.signals
	if held {
		fire = append(fire[:len(fire):len(fire)], n.inherited...)
		if !n.unwatched {
			fire = append(fire, releaseSignal(n.path))
		}
	}
	ops := fireOps(fire)
	ops = append(ops, &zk.DeleteRequest{Path: n.path, Version: -1})
	_, err := h.li.client.Transaction(ctx, ops...)
	return err
}

// fireOps returns the requests that fire each signal once: a create and a
// delete of its path in the same transaction, so no listing ever sees it.
func fireOps(signals []string) []any {
	ops := make([]any, 0, 2*len(signals)+1)
	seen := make(map[string]bool, len(signals))
	for _, p := range signals {
		if !seen[p] {
			seen[p] = true
			ops = append(ops, &zk.CreateRequest{Path: p, Data: []byte{}}, &zk.DeleteRequest{Path: p, Version: -1})
		}
	}
	return ops
}

// firable returns the signals of n.inherited (those of this acquisition's
// vanished nodes) whose predecessor no contender separates from our node,
// which the transaction that deletes our node may fire: a waiter that
// watches such a signal would sort between its predecessor and our node, and
// there is none, or it listed the children without our node, which only a
// contender older than our node, and so between them, can have done. A
// waiter whose own node is gone takes no signal for a grant (stillOurs). It
// costs one listing, and only after a node of the acquisition vanished.
func (h releaseSignals) firable(ctx context.Context, n lockNode) []string {
	if len(n.inherited) == 0 {
		return nil
	}
	li := h.li
	names, err := li.contenders(ctx)
	ours := path.Base(n.path)
	if err != nil || !slices.Contains(names, ours) {
		return nil
	}
	var fire []string
	for _, s := range n.inherited {
		pred := strings.TrimSuffix(path.Base(s), releaseSignalSuffix)
		separated := slices.ContainsFunc(names, func(c string) bool {
			return li.sortsBefore(pred, c) && li.sortsBefore(c, ours)
		})
		if !separated && li.sortsBefore(pred, ours) {
			fire = append(fire, s)
		}
	}
	return fire
}

// maxStaleWaits bounds how many times fireLater waits for the lowest
// contender to change.
const maxStaleWaits = 1 << 16

// fireLater fires, in the background, the release-signal watches that
// an acquisition's vanished nodes left armed, once that is safe, so that
// they do not outlive the session's need for them. A signal of predecessor P
// may be fired by anyone once no contender sorts at or before P: then no
// waiter can take it for P's hold, and since nodes sort in creation order
// that stays true. (A hold fires them all in its release, deleteSignalling,
// because a holder has outlived every contender before it.) It waits on the
// lowest contender (looking again at least once a session timeout) and gives
// up with the session that armed the watches, or when the client closes.
func (h releaseSignals) fireLater(stale []string) {
	li := h.li
	session := li.client.Session()
	wake := make(chan struct{}, 1)
	stop := li.client.Listen(func(framework.ConnectionState) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	go func() {
		defer stop()
		ctx := context.Background()
		for range maxStaleWaits {
			if !session.IsCurrent() {
				return // the watches died with their session
			}
			names, err := li.contenders(ctx)
			if errors.Is(err, framework.ErrClosed) {
				return
			}
			var changed <-chan zk.Event
			if err == nil {
				if stale = h.fireSafe(ctx, stale, names); len(stale) == 0 {
					return
				}
				if len(names) > 0 {
					_, _, changed, err = li.client.GetDataW(ctx, framework.JoinPath(li.basePath, names[0]))
				}
			}
			if errors.Is(err, framework.ErrClosed) {
				return
			}
			if err != nil {
				changed = nil // list again on the next connection change
			}
			select {
			case <-changed:
			case <-wake:
			case <-session.Done():
				return // the watches died with their session
			case <-li.client.Done():
				return
			case <-time.After(li.client.SessionTimeout()):
			}
		}
	}()
}

// fireSafe fires the stale signals whose predecessor sorts before every
// contender in names, and returns the others.
func (h releaseSignals) fireSafe(ctx context.Context, stale, names []string) []string {
	li := h.li
	var fire, keep []string
	for _, s := range stale {
		pred := strings.TrimSuffix(path.Base(s), releaseSignalSuffix)
		if len(names) == 0 || li.sortsBefore(pred, names[0]) {
			fire = append(fire, s)
		} else {
			keep = append(keep, s)
		}
	}
	if len(fire) == 0 {
		return keep
	}
	_, err := li.client.Transaction(ctx, fireOps(fire)...)
	if errors.Is(err, zk.ErrNoNode) {
		// The lock path's container was reaped with its last contender; a
		// signal's watch is still set on a path below it.
		if err = li.client.CreateContainers(ctx, li.basePath); err == nil {
			_, err = li.client.Transaction(ctx, fireOps(fire)...)
		}
	}
	if err != nil {
		li.client.Logger().Debug("firing stale release signals failed; trying again later", zap.Error(err))
		return stale
	}
	return keep
}

// sortsBefore reports whether contender name a sorts before contender b.
func (li *lockInternals) sortsBefore(a, b string) bool {
	if a == b {
		return false
	}
	return SortedContenders([]string{b, a}, li.lockName, li.driver.FixForSorting)[0] == a
}
