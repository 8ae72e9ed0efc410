package locks

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
	"github.com/zkcurator/zkcurator/retry"
)

// errVanished marks an attempt whose own node disappeared while it waited.
// It is retried with a new node as long as the client's retry policy allows.
var errVanished = errors.New("lock node vanished while waiting (its session expired or it was deleted)")

// vanished reports that the contender node at path is gone.
func vanished(path string) error { return errorf("%w: %s", errVanished, path) }

// lockInternals is the engine behind every lock in this package, Curator's
// LockInternals: the driver creates our node; we list the contenders, ask the
// driver whether we hold the lock and otherwise watch the one node it names.
type lockInternals struct {
	client    *framework.Client
	driver    LockInternalsDriver
	basePath  string
	lockName  string
	maxLeases int
	caps      capabilities // derived from the driver by newLockInternals
	handoff   handoff      // picked from caps by newLockInternals
}

// newLockInternals returns the engine of one lock, with the capabilities and
// the hand-off that its driver calls for.
func newLockInternals(c *framework.Client, driver LockInternalsDriver, basePath, lockName string, maxLeases int) *lockInternals {
	li := &lockInternals{client: c, driver: driver, basePath: basePath, lockName: lockName, maxLeases: maxLeases}
	li.caps = capabilitiesOf(driver, maxLeases)
	li.handoff = newHandoff(li)
	return li
}

// lockNode is an attempt's contender node, the release signals it watched
// that may still be armed, and whether any waiter can be watching its own
// (see engine_release_signal.go).
type lockNode struct {
	path  string
	owner framework.Session // the session that owns the node; of id 0 for a NodeKeeper's node
	token int64             // the hold's fencing token: known at creation (a downgrade), else read while acquiring
	// ownWatch watches our node from the first listing on, while it has
	// not fired: a hold learns through it that its node was deleted.
	ownWatch  <-chan zk.Event
	signals   []string
	inherited []string // armed signals of this acquisition's earlier, vanished nodes
	unwatched bool     // no waiter can be watching our release signal
	waited    bool     // it waited behind another contender before it held
}

// attempt creates a contender node and waits until it holds the lock, within
// tw: it gives up when tw's deadline passes and reports held == false, or
// an error when the wait ended while it waited for something else than the
// lock. On any outcome other than a hold, our node is gone (or being deleted
// in the background) when attempt returns. A node that vanishes, or that
// belongs to a session the client no longer has, is replaced by a new one as
// far as the client's retry policy allows.
func (li *lockInternals) attempt(tw *timedWait, data []byte) (n lockNode, held bool, err error) {
	var stale []string // release signals left armed; see handoff.fireLater
	defer func() {
		if !held && len(stale) > 0 {
			li.handoff.fireLater(stale)
		}
	}()
	bo := backoff.WithContext(retry.NewBackOff(li.client.RetryPolicy()), tw.ctx)
	for {
		n, held, stale, err = li.attemptOnce(tw, data, stale)
		if held {
			return n, held, err
		}
		switch {
		case err != nil && tw.isOver():
			return n, false, tw.ended(pending(li.client), err)
		case !errors.Is(err, errVanished):
			return n, held, err
		case tw.ctx.Err() != nil:
			return lockNode{}, false, tw.ctx.Err()
		}
		sleep := bo.NextBackOff()
		if sleep == backoff.Stop {
			return lockNode{}, false, errorf("%w: %s: %w", ErrLockLost, tw.what, err)
		}
		li.client.Logger().Debug("lock node vanished; retrying with a new node", zap.Error(err))
		retry := time.NewTimer(sleep)
		select {
		case <-retry.C:
		case <-tw.over:
			retry.Stop()
			return lockNode{}, false, tw.ended("a retry", err)
		case <-tw.ctx.Done():
			retry.Stop()
			if tw.isOver() {
				return lockNode{}, false, tw.ended("a retry", err)
			}
			return lockNode{}, false, tw.ctx.Err()
		}
	}
}

// attemptOnce makes one contender node and waits with it. stale are the
// release-signal watches that this acquisition's earlier nodes left armed
// (see handoff.fireLater); when the attempt does not hold, it returns them as
// its abandonment leaves them: without those it fired, and with those of its
// own waiter that it could not fire because its node was already gone.
func (li *lockInternals) attemptOnce(tw *timedWait, data []byte, stale []string) (lockNode, bool, []string, error) {
	ctx := tw.ctx
	var token int64
	ourPath, owner, err := owned.Create(ctx, li.client, func(ctx context.Context) (p string, err error) {
		p, token, err = li.caps.create(ctx, li.client, framework.JoinPath(li.basePath, li.lockName), data)
		return p, err
	})
	if err == nil && owner.ID() == 0 {
		err = vanished(ourPath)
	}
	if err != nil {
		if ourPath != "" {
			li.abandon(ctx, lockNode{path: ourPath})
		}
		return lockNode{}, false, stale, errorf("create lock node under %s: %w", li.basePath, err)
	}
	n := lockNode{path: ourPath, owner: owner, token: token, inherited: stale}
	held, err := li.waitToHold(tw, &n)
	if err == nil && held {
		return n, held, stale, err
	}
	fired, ok := li.abandon(ctx, n)
	stale = slices.DeleteFunc(slices.Clone(stale), func(s string) bool { return slices.Contains(fired, s) })
	if !ok && owner.IsCurrent() { // else the watches died with their session
		stale = append(stale, n.signals...)
	}
	return lockNode{owner: owner}, false, stale, err
}

// contenders lists the lock path's children that carry the lock name, in lock order.
func (li *lockInternals) contenders(ctx context.Context) ([]string, error) {
	children, _, err := li.client.Children(ctx, li.basePath)
	if errors.Is(err, zk.ErrNoNode) {
		return []string{}, nil // no lock node was ever created, or the container was reaped
	}
	if err != nil {
		return nil, errorf("list %s: %w", li.basePath, err)
	}
	c := SortedContenders(children, li.lockName, li.driver.FixForSorting)
	if c == nil {
		c = []string{}
	}
	return c, nil
}

// participants returns the contenders' full paths in lock order.
func (li *lockInternals) participants(ctx context.Context) ([]string, error) {
	names, err := li.contenders(ctx)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(names))
	for _, n := range names {
		if n != UnfairHolderNodeName { // it marks a hold, it is no contender
			paths = append(paths, framework.JoinPath(li.basePath, n))
		}
	}
	return paths, nil
}

// release ends a hold (held) or abandons an attempt, as the lock's hand-off
// does it (see handoff.release); g is the grace of a hold's clean-up.
func (li *lockInternals) release(ctx context.Context, n lockNode, held bool, g grace) (fired bool, err error) {
	return li.handoff.release(ctx, n, held, g)
}

// abandon deletes the node of an attempt that did not end in a hold, with a
// context of its own so that a cancelled caller still leaves no node behind.
// Along with the release signals its waiter watched it fires those of
// n.inherited that the deletion of its node may fire (handoff.firable), and
// it returns the signals it fired; ok is false when the ones its waiter
// watched could not be fired (see handoff.fireLater).
func (li *lockInternals) abandon(ctx context.Context, n lockNode) (fired []string, ok bool) {
	actx, cancel := cleanupContext(ctx, li.client, li.client.SessionTimeout(), withGrace)
	defer cancel()
	n.signals = append(slices.Clip(n.signals), li.handoff.firable(actx, n)...)
	ok, err := li.release(actx, n, false, noGrace)
	if err != nil {
		li.client.Logger().Debug("deleting an abandoned lock node failed; retrying in the background", zap.Error(err))
	}
	if !ok {
		return nil, false
	}
	return n.signals, true
}
