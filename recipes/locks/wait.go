package locks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// waiter is one contender waiting for the lock in waitToHold, and what it
// watches between listings.
type waiter struct {
	li      *lockInternals
	n       *lockNode
	name    string // our node's name
	ordered bool   // the driver's nodes sort in creation order
	signals bool   // holds of this lock signal their release (handoff.go)

	// own watches our node, once we may hold on an event; ownLosses is the
	// client's ConnectionLosses when it was armed.
	own       <-chan zk.Event
	ownLosses uint64
	// released watches signal, the release signal of the node we watch,
	// until it fires.
	signal   string
	released <-chan zk.Event
}

// waitToHold loops until our node holds the lock, timeout fires (false, nil)
// or ctx is done. A waiter wakes when the node it watches changes and on every
// connection state change, because go-zookeeper does not fire watches on a
// plain disconnect.
func (li *lockInternals) waitToHold(ctx context.Context, n *lockNode, timeout <-chan time.Time) (bool, error) {
	wake := make(chan struct{}, 1)
	stop := li.client.Listen(func(framework.ConnectionState) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer stop()

	w := &waiter{li: li, n: n, name: path.Base(n.path), signals: li.signalsRelease()}
	if o, ok := li.driver.(CreationOrdered); ok {
		w.ordered = o.NodesSortInCreationOrder()
	}
	var nodeLost <-chan struct{} // nil: never ready
	if k, ok := li.driver.(NodeKeeper); ok {
		nodeLost = k.NodeLost(n.path)
	}
	var contenders []string // nil: list the children again
	for {
		if err := w.current(); err != nil {
			return false, err
		}
		if contenders != nil {
			// Decided on an event, not on a listing.
			ok, err := w.stillOurs()
			if err != nil {
				return false, err
			}
			if !ok {
				contenders = nil
			}
		}
		listed := contenders == nil
		if listed {
			var err error
			if contenders, err = li.contenders(ctx); err != nil {
				return false, err
			}
		}
		pr, err := li.driver.GetsTheLock(ctx, li.client, contenders, w.name, li.maxLeases)
		if errors.Is(err, zk.ErrNoNode) {
			return false, vanished(w.n.path)
		}
		if err != nil {
			return false, fmt.Errorf("locks: %s: %w", li.basePath, err)
		}
		if pr.GetsTheLock {
			if err := w.current(); err != nil {
				return false, err
			}
			won, err := li.claimHolder(ctx, n)
			if err != nil || won {
				n.unwatched = won && listed && contenders[len(contenders)-1] == w.name
				return won, err
			}
			pr.PathToWatch = li.holderName()
		}

		watched := pr.PathToWatch
		var handOff []string
		if w.ordered {
			handOff = li.handOffListing(ctx, contenders, watched, w.name)
		}
		events, err := w.arm(ctx, watched, handOff != nil)
		switch {
		case errors.Is(err, errPredecessorGone):
			// Gone before we could watch it: our listing is stale, and one
			// new listing beats walking it node by node.
			contenders = nil
			continue
		case err != nil:
			return false, err
		}

		select {
		case ev := <-w.own:
			w.own, contenders = nil, nil
			if ev.Type == zk.EventNodeDeleted {
				return false, vanished(w.n.path)
			}
		case ev := <-w.released:
			w.signal, w.released, contenders = "", nil, nil
			if ev.Type == zk.EventNodeCreated {
				contenders = []string{w.name}
			}
		case ev := <-events:
			// A release fires the signal before it deletes the watched node,
			// so a signal that came is already in its channel.
			switch {
			case w.signalled():
				contenders = []string{w.name}
			case ev.Type == zk.EventNodeDeleted:
				contenders = handOff
			default:
				contenders = nil
			}
		case <-wake:
			contenders = nil
		case <-nodeLost:
			return false, fmt.Errorf("%w: %s (its driver gave it up)", errVanished, n.path)
		case <-timeout:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// current fails with an error matching errVanished when our node belongs to a
// session the client no longer has: such a node never grants a hold, so the
// attempt gives it up and queues again on the current session.
func (w *waiter) current() error {
	if w.li.sessionBound() && !isCurrent(w.li.client, w.n.owner) {
		return sessionGone(w.n.path, w.n.owner)
	}
	return nil
}

// stillOurs tells whether a decision taken on an event rather than on a
// listing may stand. It assumes our node exists; so it stands only if our
// node's watch has not fired since, with its deletion or anything else, and
// the connection has not dropped since that watch was armed: events that
// come after a reconnect may come out of order (see
// framework.Client.ConnectionLosses), so the deletion of our node might
// still be on its way. A false answer means: list the children again.
func (w *waiter) stillOurs() (bool, error) {
	if w.li.client.ConnectionLosses() != w.ownLosses {
		w.own = nil // armed again on the next wait, on the current connection
		return false, nil
	}
	select {
	case ev := <-w.own:
		w.own = nil
		if ev.Type == zk.EventNodeDeleted {
			return false, vanished(w.n.path)
		}
		return false, nil
	default:
		return true, nil
	}
}

// signalled reports, without blocking, whether the release signal we watch
// has come.
func (w *waiter) signalled() bool {
	select {
	case ev := <-w.released:
		w.signal, w.released = "", nil
		return ev.Type == zk.EventNodeCreated
	default:
		return false
	}
}

// errPredecessorGone reports that the node to watch was gone when arm tried
// to watch it.
var errPredecessorGone = errors.New("the node to watch is gone")

// arm watches watched and returns its watch. When our decision may come from
// an event, it also watches our own node, if it does not yet; when
// watched's deletion alone does not hand us the lock (handOff false) and
// holds signal their release, it watches watched's release signal too,
// unless it still does. The requests go out together, so that a contender
// that queues again at once in a short queue is watching before its turn;
// their order does not matter, since every decision taken on an event checks
// our own node first.
func (w *waiter) arm(ctx context.Context, watched string, handOff bool) (<-chan zk.Event, error) {
	li := w.li
	var wg sync.WaitGroup
	var signalErr, ownErr error
	signal := ""
	if w.signals && !handOff {
		signal = releaseSignal(framework.JoinPath(li.basePath, watched))
	}
	if signal != w.signal {
		// A signal watch we drop stays in n.signals, to be fired by our
		// release (handoff.go).
		w.signal, w.released = signal, nil
	}
	if signal != "" && w.released == nil {
		w.n.signals = append(w.n.signals, signal)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, w.released, signalErr = li.client.ExistsW(ctx, signal); signalErr != nil {
				signalErr = fmt.Errorf("locks: watch %s: %w", signal, signalErr)
			}
		}()
	}
	if w.own == nil && (handOff || w.signals) {
		w.ownLosses = li.client.ConnectionLosses()
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.own, ownErr = li.watchOwn(ctx, w.n.path)
		}()
	}
	_, _, events, err := li.client.GetDataW(ctx, framework.JoinPath(li.basePath, watched))
	wg.Wait()
	switch {
	case ownErr != nil:
		return nil, ownErr
	case signalErr != nil:
		w.signal = "" // armed again on the next wait
		return nil, signalErr
	case errors.Is(err, zk.ErrNoNode):
		return nil, errPredecessorGone
	case err != nil:
		return nil, fmt.Errorf("locks: watch %s: %w", watched, err)
	}
	return events, nil
}

// watchOwn watches our node. A waiter that holds on an event rather than on a
// listing needs it: a node deleted by someone else while it waited must not
// be taken for the lowest.
func (li *lockInternals) watchOwn(ctx context.Context, ourPath string) (<-chan zk.Event, error) {
	_, _, events, err := li.client.GetDataW(ctx, ourPath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, vanished(ourPath)
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
