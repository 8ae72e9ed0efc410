package locks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// errVanished marks an attempt whose own node disappeared while it waited.
// It is retried with a new node as long as the client's retry policy allows.
var errVanished = errors.New("lock node vanished while waiting (its session expired or it was deleted)")

// lockInternals is the engine behind every lock in this package, Curator's
// LockInternals: the driver creates our node; we list the contenders, ask the
// driver whether we hold the lock and otherwise watch the one node it names.
type lockInternals struct {
	client    *framework.Client
	driver    LockInternalsDriver
	basePath  string
	lockName  string
	maxLeases int
}

// lockNode is an attempt's contender node, the release signals it watched
// that may still be armed, and whether any waiter can be watching its own
// (see handoff.go).
type lockNode struct {
	path      string
	signals   []string
	unwatched bool // no waiter can be watching our release signal
}

// attempt creates a contender node and waits until it holds the lock. wait < 0
// waits as long as ctx allows; otherwise the attempt gives up after wait and
// reports held == false. On any outcome other than a hold, our node is gone
// (or being deleted in the background) when attempt returns.
func (li *lockInternals) attempt(ctx context.Context, data []byte, wait time.Duration) (n lockNode, held bool, err error) {
	var timeout <-chan time.Time
	if wait >= 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	bo := backoff.WithContext(retry.NewBackOff(li.client.RetryPolicy()), ctx)
	for {
		n, held, err = li.attemptOnce(ctx, data, timeout)
		if !errors.Is(err, errVanished) {
			return n, held, err
		}
		sleep := bo.NextBackOff()
		if sleep == backoff.Stop {
			return lockNode{}, false, fmt.Errorf("locks: acquire %s: %w: %w", li.basePath, ErrLockLost, err)
		}
		li.client.Logger().Debug("lock node vanished; retrying with a new node")
		select {
		case <-time.After(sleep):
		case <-ctx.Done():
			return lockNode{}, false, ctx.Err()
		}
	}
}

func (li *lockInternals) attemptOnce(ctx context.Context, data []byte, timeout <-chan time.Time) (lockNode, bool, error) {
	ourPath, err := li.driver.CreatesTheLock(ctx, li.client, framework.JoinPath(li.basePath, li.lockName), data)
	if err != nil {
		return lockNode{}, false, fmt.Errorf("locks: create lock node under %s: %w", li.basePath, err)
	}
	n := lockNode{path: ourPath}
	held, err := li.waitToHold(ctx, &n, timeout)
	if err != nil || !held {
		li.abandon(ctx, n)
	}
	return n, held, err
}

// waitToHold loops until our node holds the lock, timeout fires (false, nil)
// or ctx is done. A waiter wakes when the node it watches changes and on every
// connection state change, because go-zookeeper does not fire watches on a
// plain disconnect.
func (li *lockInternals) waitToHold(ctx context.Context, n *lockNode, timeout <-chan time.Time) (bool, error) {
	ourPath := n.path
	ourName := path.Base(ourPath)
	wake := make(chan struct{}, 1)
	stop := li.client.Listen(func(framework.ConnectionState) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer stop()

	ordered := false
	if o, ok := li.driver.(CreationOrdered); ok {
		ordered = o.NodesSortInCreationOrder()
	}
	var nodeLost <-chan struct{} // nil: never ready
	if k, ok := li.driver.(NodeKeeper); ok {
		nodeLost = k.NodeLost(ourPath)
	}
	signals := li.signalsRelease()
	var own <-chan zk.Event // our node's watch, armed once we may hold on an event
	var contenders []string // nil: list the children again
	for {
		if contenders != nil {
			// Decided on an event, not on a listing: that holds only while our
			// node exists, and its deletion, had it come first, is in own.
			select {
			case ev := <-own:
				own, contenders = nil, nil
				if ev.Type == zk.EventNodeDeleted {
					return false, fmt.Errorf("%w: %s", errVanished, ourPath)
				}
			default:
			}
		}
		listed := contenders == nil
		if listed {
			var err error
			if contenders, err = li.contenders(ctx); err != nil {
				return false, err
			}
		}
		pr, err := li.driver.GetsTheLock(ctx, li.client, contenders, ourName, li.maxLeases)
		if errors.Is(err, zk.ErrNoNode) {
			return false, fmt.Errorf("%w: %s", errVanished, ourPath)
		}
		if err != nil {
			return false, fmt.Errorf("locks: %s: %w", li.basePath, err)
		}
		if pr.GetsTheLock {
			won, err := li.claimHolder(ctx, ourPath)
			if err != nil || won {
				n.unwatched = won && listed && contenders[len(contenders)-1] == ourName
				return won, err
			}
			pr.PathToWatch = li.holderName()
		}

		watched := pr.PathToWatch
		var handOff []string
		if ordered {
			handOff = li.handOffListing(ctx, contenders, watched, ourName)
		}
		armOwn := own == nil && (handOff != nil || signals)
		w, err := li.arm(ctx, n, watched, signals && handOff == nil, armOwn)
		if armOwn {
			own = w.own
		}
		switch {
		case errors.Is(err, errPredecessorGone):
			// Gone before we could watch it: our listing is stale, and one
			// new listing beats walking it node by node.
			contenders = nil
			continue
		case err != nil:
			return false, err
		}
		released, events := w.released, w.pred

		select {
		case ev := <-own:
			own, contenders = nil, nil
			if ev.Type == zk.EventNodeDeleted {
				return false, fmt.Errorf("%w: %s", errVanished, ourPath)
			}
		case ev := <-released:
			contenders = nil
			if ev.Type == zk.EventNodeCreated {
				contenders = []string{ourName}
			}
		case ev := <-events:
			// A release fires the signal before it deletes the watched node,
			// so a signal that came is already in its channel.
			switch {
			case signalled(released):
				contenders = []string{ourName}
			case ev.Type == zk.EventNodeDeleted:
				contenders = handOff
			default:
				contenders = nil
			}
		case <-wake:
			contenders = nil
		case <-nodeLost:
			return false, fmt.Errorf("%w: %s (its driver gave it up)", errVanished, ourPath)
		case <-timeout:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// errPredecessorGone reports that the node to watch was gone when arm
// tried to watch it.
var errPredecessorGone = errors.New("the node to watch is gone")

// waitSet is what one wait watches; a nil channel is not watched.
type waitSet struct {
	pred     <-chan zk.Event // the node that GetsTheLock named
	released <-chan zk.Event // its release signal
	own      <-chan zk.Event // our own node
}

// arm watches watched and, when asked, its release signal and our own node.
// The requests go out together, so that a contender that queues again at
// once in a short queue is watching before its turn; their order does not
// matter, since every decision taken on an event checks our node first.
func (li *lockInternals) arm(ctx context.Context, n *lockNode, watched string, signal, own bool) (waitSet, error) {
	var w waitSet
	var wg sync.WaitGroup
	var signalErr, ownErr error
	if signal {
		path := releaseSignal(framework.JoinPath(li.basePath, watched))
		n.signals = append(n.signals, path)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, w.released, signalErr = li.client.ExistsW(ctx, path); signalErr != nil {
				signalErr = fmt.Errorf("locks: watch %s: %w", path, signalErr)
			}
		}()
	}
	if own {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.own, ownErr = li.watchOwn(ctx, n.path)
		}()
	}
	var err error
	_, _, w.pred, err = li.client.GetDataW(ctx, framework.JoinPath(li.basePath, watched))
	wg.Wait()
	switch {
	case ownErr != nil:
		return w, ownErr
	case signalErr != nil:
		return w, signalErr
	case errors.Is(err, zk.ErrNoNode):
		return w, errPredecessorGone
	case err != nil:
		return w, fmt.Errorf("locks: watch %s: %w", watched, err)
	}
	return w, nil
}

// watchOwn watches our node. A waiter that holds on an event rather than on a
// listing needs it: a node deleted by someone else while it waited must not
// be taken for the lowest.
func (li *lockInternals) watchOwn(ctx context.Context, ourPath string) (<-chan zk.Event, error) {
	_, _, events, err := li.client.GetDataW(ctx, ourPath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, fmt.Errorf("%w: %s", errVanished, ourPath)
	case err != nil:
		return nil, fmt.Errorf("locks: watch %s: %w", ourPath, err)
	}
	return events, nil
}

// handOffListing decides, while we start to wait, what the deletion of the
// watched node will mean. When nodes sort in creation order, no contender
// that arrives later can sort before us, so if our listing without the
// watched node already grants us the lock, that deletion alone hands the lock
// over and no new listing is needed: the listing to decide on then is
// returned, cut to the contenders up to us. Otherwise it returns nil, and the
// deletion means one new listing, which beats watching stale nodes one by one.
func (li *lockInternals) handOffListing(ctx context.Context, contenders []string, watched, ourName string) []string {
	rest := make([]string, 0, len(contenders))
	for _, name := range contenders {
		if name != watched {
			rest = append(rest, name)
		}
		if name == ourName {
			break
		}
	}
	pr, err := li.driver.GetsTheLock(ctx, li.client, rest, ourName, li.maxLeases)
	if err != nil || !pr.GetsTheLock {
		return nil
	}
	return rest
}

// contenders lists the lock path's children that carry the lock name, in lock order.
func (li *lockInternals) contenders(ctx context.Context) ([]string, error) {
	children, _, err := li.client.Children(ctx, li.basePath)
	if errors.Is(err, zk.ErrNoNode) {
		return []string{}, nil // no lock node was ever created, or the container was reaped
	}
	if err != nil {
		return nil, fmt.Errorf("locks: list %s: %w", li.basePath, err)
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
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = framework.JoinPath(li.basePath, n)
	}
	return paths, nil
}

func (li *lockInternals) holderName() string {
	if h, ok := li.driver.(Holding); ok {
		return h.HolderNodeName()
	}
	return ""
}

// claimHolder makes a pick of a Holding driver a hold: it creates the holder
// node in one transaction with a check that our node still exists, so a
// contender whose session has ended can never own the holder node. Drivers
// without a holder node hold as soon as GetsTheLock says so.
func (li *lockInternals) claimHolder(ctx context.Context, ourPath string) (bool, error) {
	name := li.holderName()
	if name == "" {
		return true, nil
	}
	holderPath := framework.JoinPath(li.basePath, name)
	_, err := li.client.Transaction(ctx,
		&zk.CheckVersionRequest{Path: ourPath, Version: -1},
		&zk.CreateRequest{Path: holderPath, Data: []byte(path.Base(ourPath)), Flags: zk.FlagEphemeral},
	)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, zk.ErrNoNode):
		return false, fmt.Errorf("%w: %s", errVanished, ourPath)
	case !errors.Is(err, zk.ErrNodeExists):
		return false, fmt.Errorf("locks: claim %s: %w", holderPath, err)
	}
	// Someone holds, or our own claim succeeded but its reply was lost.
	data, stat, err := li.client.GetData(ctx, holderPath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("locks: read %s: %w", holderPath, err)
	}
	return string(data) == path.Base(ourPath) && stat.EphemeralOwner == li.client.SessionID(), nil
}

// fencePath is the node whose creation zxid is the fencing token of a hold.
func (li *lockInternals) fencePath(ourPath string) string {
	if name := li.holderName(); name != "" {
		return framework.JoinPath(li.basePath, name)
	}
	return ourPath
}

// release ends a hold (held) or abandons an attempt: the driver's Releaser
// when it has one; otherwise our node is deleted, guaranteed, so a failure
// here is retried in the background. For Holding drivers the holder node goes
// in the same transaction as our node whenever it is ours; for drivers that
// signal releases, the signals go in the transaction that deletes our node.
func (li *lockInternals) release(ctx context.Context, n lockNode, held bool) error {
	if r, ok := li.driver.(Releaser); ok {
		return r.ReleasesTheLock(ctx, li.client, n.path)
	}
	if li.holderName() != "" && (held || li.ownsHolder(ctx, n.path)) {
		return li.releaseHolder(ctx, n.path)
	}
	if li.signalsRelease() && ((held && !n.unwatched) || len(n.signals) > 0) && li.deleteSignalling(ctx, n, held) {
		return nil
	}
	return li.client.Delete(ctx, n.path, framework.Guaranteed(), framework.Quietly())
}

// ownsHolder reports whether the holder node names our node and belongs to
// our session: an attempt whose claim went through unseen must give it up.
func (li *lockInternals) ownsHolder(ctx context.Context, ourPath string) bool {
	data, stat, err := li.client.GetData(ctx, framework.JoinPath(li.basePath, li.holderName()))
	return err == nil && string(data) == path.Base(ourPath) && stat.EphemeralOwner == li.client.SessionID()
}

// releaseHolder deletes our node and the holder node atomically, so that a
// holder node is never deleted on behalf of a session other than its own:
// once our node is gone (NoNode), so is our holder node. It keeps trying
// through connection loss for up to twice the session timeout, by which time
// the session has either come back or been declared lost and closed (and its
// ephemeral holder node deleted by the server).
func (li *lockInternals) releaseHolder(ctx context.Context, ourPath string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*li.client.SessionTimeout())
	defer cancel()
	bo := backoff.WithContext(backoff.NewExponentialBackOff(), ctx)
	op := func() error {
		_, err := li.client.Transaction(ctx,
			&zk.DeleteRequest{Path: ourPath, Version: -1},
			&zk.DeleteRequest{Path: framework.JoinPath(li.basePath, li.holderName()), Version: -1},
		)
		switch {
		case err == nil || errors.Is(err, zk.ErrNoNode):
			return nil
		case retry.IsRetryable(err):
			return err
		}
		return backoff.Permanent(err)
	}
	if err := backoff.Retry(op, bo); err != nil {
		return fmt.Errorf("locks: release %s: %w", ourPath, err)
	}
	return nil
}

// abandon deletes the node of an attempt that did not end in a hold, with a
// context of its own so that a cancelled caller still leaves no node behind.
func (li *lockInternals) abandon(ctx context.Context, n lockNode) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), li.client.SessionTimeout())
	defer cancel()
	if err := li.release(ctx, n, false); err != nil {
		li.client.Logger().Debug("deleting an abandoned lock node failed; retrying in the background")
	}
}
