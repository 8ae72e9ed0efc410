package locks

import (
	"context"
	"errors"
	"path"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// waiter is one contender waiting for the lock in waitToHold, and what it
// watches between listings.
type waiter struct {
	li   *lockInternals
	n    *lockNode
	name string // our node's name

	// wake is ready after a connection state change until stop; nodeLost is
	// closed when a NodeKeeper driver gives our node up (nil: never).
	wake     chan struct{}
	stop     func()
	nodeLost <-chan struct{}

	// own watches our node, from the first listing on (read beside it, for
	// the fencing token) until it fires, and again once we may hold on an
	// event; ownLosses is the client's ConnectionLosses when it was armed.
	own       <-chan zk.Event
	ownLosses uint64
	ownRead   bool // our node was read beside the first listing
	// released watches signal, the release signal of the node we watch,
	// until it fires.
	signal   string
	released <-chan zk.Event
}

// waitToHold is Curator's loop: list the contenders, ask the driver whether
// we hold, claim the hold, or watch the node it names and wait. It returns
// once our node holds the lock, tw's deadline passes (false, nil) or its ctx
// is done. A
// waiter wakes when what it watches changes and on every connection state
// change, because go-zookeeper does not fire watches on a plain disconnect.
func (li *lockInternals) waitToHold(tw *timedWait, n *lockNode) (bool, error) {
	ctx := tw.ctx
	w := li.newWaiter(n)
	defer w.stop()
	var decided []string // a listing decided on an event; nil: list the children again
	for {
		contenders, listed, err := w.listing(ctx, decided)
		if err != nil {
			return false, err
		}
		pr, err := w.getsTheLock(ctx, contenders)
		if err != nil {
			return false, err
		}
		if pr.GetsTheLock {
			if won, err := w.claim(ctx, contenders, listed); err != nil || won {
				if won {
					n.ownWatch = w.own
				}
				return won, err
			}
			pr.PathToWatch = li.caps.holderName
		}
		n.waited = true
		plan := li.handoff.plan(ctx, contenders, pr.PathToWatch, w.name)
		events, err := w.arm(ctx, pr.PathToWatch, plan)
		switch {
		case errors.Is(err, errPredecessorGone):
			// Gone before we could watch it: our listing is stale, and one
			// new listing beats walking it node by node.
			decided = nil
			continue
		case err != nil:
			return false, err
		}

		select {
		case ev := <-w.own:
			if err := w.ownEvent(ev); err != nil {
				return false, err
			}
			decided = nil
		case ev := <-w.released:
			decided = nil
			if w.signalEvent(ev) {
				decided = []string{w.name}
			}
		case ev := <-events:
			decided = w.watchedChanged(ev, plan.onDeleted)
		case <-w.wake:
			decided = nil
		case <-w.nodeLost:
			return false, errorf("%w: %s (its driver gave it up)", errVanished, n.path)
		case <-tw.over:
			return false, nil
		case <-ctx.Done():
			return false, tw.ctxErr()
		}
	}
}

// newWaiter starts listening to the connection for a waiter on our node n.
func (li *lockInternals) newWaiter(n *lockNode) *waiter {
	w := &waiter{li: li, n: n, name: path.Base(n.path), wake: make(chan struct{}, 1)}
	w.stop = li.client.Listen(func(framework.ConnectionState) {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	})
	if li.caps.keeper != nil {
		w.nodeLost = li.caps.keeper.NodeLost(n.path)
	}
	return w
}

// listing returns the contenders to decide on: those decided on an event, if
// that decision may stand (stillOurs), or else a new listing (listed).
func (w *waiter) listing(ctx context.Context, decided []string) (contenders []string, listed bool, err error) {
	if err := w.current(); err != nil {
		return nil, false, err
	}
	if decided != nil {
		ok, err := w.stillOurs()
		if err != nil || ok {
			return decided, false, err
		}
	}
	if !w.ownRead {
		return w.firstListing(ctx)
	}
	contenders, err = w.li.contenders(ctx)
	return contenders, true, err
}

// firstListing lists the contenders and, beside the listing, reads and
// watches our node: its creation zxid is the fencing token of the hold to
// come (when our node is the fence), and its watch tells a waiter that may
// hold on an event, and then the hold, that the node was deleted.
func (w *waiter) firstListing(ctx context.Context) ([]string, bool, error) {
	w.ownRead = true
	w.ownLosses = w.li.client.ConnectionLosses()
	var stat *zk.Stat
	var ownErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		stat, w.own, ownErr = w.li.watchOwn(ctx, w.n.path)
	}()
	contenders, err := w.li.contenders(ctx)
	<-read
	switch {
	case ownErr != nil:
		return nil, false, ownErr
	case err != nil:
		return nil, false, err
	}
	if w.n.token == 0 && w.li.caps.holderName == "" {
		w.n.token = stat.Czxid
	}
	return contenders, true, nil
}

// getsTheLock asks the driver whether our node holds the lock; a node the
// driver does not find among the contenders has vanished.
func (w *waiter) getsTheLock(ctx context.Context, contenders []string) (PredicateResults, error) {
	pr, err := w.li.driver.GetsTheLock(ctx, w.li.client, contenders, w.name, w.li.maxLeases)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return pr, vanished(w.n.path)
	case err != nil:
		return pr, errorf("%s: %w", w.li.basePath, err)
	}
	return pr, nil
}

// claim makes the driver's "you hold" a hold, if our node is still current
// (and, for a Holding driver, once we own the holder node). A hold granted by
// a listing that ends with our node is one that no waiter can be watching.
func (w *waiter) claim(ctx context.Context, contenders []string, listed bool) (bool, error) {
	if err := w.current(); err != nil {
		return false, err
	}
	won, err := w.li.claimHolder(ctx, w.n)
	if err != nil || won {
		w.n.unwatched = won && listed && contenders[len(contenders)-1] == w.name
	}
	return won, err
}

// ownEvent takes an event of our own node's watch, which is then spent: its
// deletion ends the attempt, any other change means a new listing.
func (w *waiter) ownEvent(ev zk.Event) error {
	w.own = nil
	if ev.Type == zk.EventNodeDeleted {
		return vanished(w.n.path)
	}
	return nil
}

// signalEvent takes an event of the release signal we watch, which is then
// spent, and reports whether it is the signal: that hands us the lock, with
// no one before us; anything else means a new listing.
func (w *waiter) signalEvent(ev zk.Event) bool {
	w.signal, w.released = "", nil
	return ev.Type == zk.EventNodeCreated
}

// watchedChanged decides on an event of the watched node. A release fires
// the signal before it deletes the watched node, so a signal that came is
// already in its channel; otherwise a deletion means onDeleted (nil: a new
// listing), and any other change a new listing.
func (w *waiter) watchedChanged(ev zk.Event, onDeleted []string) []string {
	switch {
	case w.signalled():
		return []string{w.name}
	case ev.Type == zk.EventNodeDeleted:
		return onDeleted
	}
	return nil
}

// current fails with an error matching errVanished when our node belongs to a
// session the client no longer has: such a node never grants a hold, so the
// attempt gives it up and queues again on the current session.
func (w *waiter) current() error {
	if w.li.caps.sessionBound && !w.n.owner.IsCurrent() {
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
		return false, w.ownEvent(ev)
	default:
		return true, nil
	}
}

// signalled reports, without blocking, whether the release signal we watch
// has come.
func (w *waiter) signalled() bool {
	select {
	case ev := <-w.released:
		return w.signalEvent(ev)
	default:
		return false
	}
}

// errPredecessorGone reports that the node to watch was gone when arm tried
// to watch it.
var errPredecessorGone = errors.New("the node to watch is gone")

// arm watches watched and returns its watch, and sets up what plan asks
// for besides: a watch on our own node, if we do not have one yet, and on
// watched's release signal, unless we still have it. The requests go out
// together, so that a contender that queues again at once in a short queue
// is watching before its turn; their order does not matter, since every
// decision taken on an event checks our own node first.
func (w *waiter) arm(ctx context.Context, watched string, plan watchPlan) (<-chan zk.Event, error) {
	li := w.li
	var wg sync.WaitGroup
	var signalErr, ownErr error
	if plan.signal != w.signal {
		// A signal watch we drop stays in n.signals, to be fired by our
		// release (engine_engine_release_signal.go).
		w.signal, w.released = plan.signal, nil
	}
	if signal := plan.signal; signal != "" && w.released == nil {
		w.n.signals = append(w.n.signals, signal)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, w.released, signalErr = li.client.ExistsW(ctx, signal); signalErr != nil {
				signalErr = errorf("watch %s: %w", signal, signalErr)
			}
		}()
	}
	if w.own == nil && plan.watchOwn {
		w.ownLosses = li.client.ConnectionLosses()
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, w.own, ownErr = li.watchOwn(ctx, w.n.path)
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
		return nil, errorf("watch %s: %w", watched, err)
	}
	return events, nil
}

// watchOwn watches our node. A waiter that holds on an event rather than on a
// listing needs it: a node deleted by someone else while it waited must not
// be taken for the lowest.
func (li *lockInternals) watchOwn(ctx context.Context, ourPath string) (*zk.Stat, <-chan zk.Event, error) {
	_, stat, events, err := li.client.GetDataW(ctx, ourPath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return nil, nil, vanished(ourPath)
	case err != nil:
		return nil, nil, errorf("watch %s: %w", ourPath, err)
	}
	return stat, events, nil
}
