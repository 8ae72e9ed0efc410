package cache

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/queue"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// retryEvery is how often the loop tries again to bring the cache in line
// after a read failed (the connection was down, say).
const retryEvery = time.Second

// input is what the loop reacts to: a watch notification or a connection
// state.
type input struct {
	event   zk.Event
	state   framework.ConnectionState
	isState bool
}

// engine is what the three caches share: the nodes under a root, down to
// maxDepth, kept in line with the server by one goroutine (run) fed by the
// client's watch notifications and connection states.
type engine struct {
	c        *framework.Client
	root     string
	cfg      config
	hideRoot bool // the root's own changes are not reported (PathChildrenCache)

	mu sync.RWMutex
	// nodes are the nodes held, each as read last and never changed once
	// held (a change holds a new Node, so that the events queued can share
	// it), and kids the names of the children held of each node that has
	// any; both written only by the goroutine that owns the engine.
	nodes map[string]*Node
	kids  map[string]map[string]struct{}

	watches transport           // used by that goroutine and its refresh's readers
	down    bool                // a suspension or loss was reported, and no reconnect since
	inbox   *queue.Queue[input] // the inputs of the Start that succeeded
	// interrupt cancels the loop's reads under way (onConnection).
	interrupt atomic.Pointer[context.CancelFunc]
	outbox    *outbox
	viewLen   atomic.Int64 // how many nodes the consumer has been told of
	// unreported holds, under e.mu, the node as last reported of each held
	// node replaced since without an event (a new Stat, the same data
	// version): an update's Old.
	unreported map[string]*Node
	// told is, under e.mu, what the consumer will have been told when node
	// events were dropped: the catch-up reports the differences from it.
	told   map[string]*Node
	loaded atomic.Bool // Initialized is queued: the queue's bound applies
	met    eventMetrics
	events chan Event

	life lifecycle.Lifecycle // Started from a Start's first step; back to Latent if its load fails
	// handoff orders the end of a load against close: a load that succeeds
	// hands over stopInput and starts the pump and loop under it, unless
	// close came first; close stops what was handed over.
	handoff   sync.Mutex
	pumping   bool // the pump runs, and closes events when it ends
	stopInput []func()
	stop      chan struct{}   // closed by close: the pump ends
	ctx       context.Context // cancelled by close: the loop and its reads end
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

func newEngine(c *framework.Client, kind, root string, cfg config, hideRoot bool) (*engine, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil client", ErrInvalidArgument)
	}
	if err := framework.ValidatePath(root); err != nil {
		return nil, fmt.Errorf("%w: path %q: %w", ErrInvalidArgument, root, err)
	}
	if cfg.log == nil {
		cfg.log = c.Logger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &engine{
		c: c, root: root, cfg: cfg, hideRoot: hideRoot, ctx: ctx, cancel: cancel,
		life:       lifecycle.New(&lifeErrors),
		nodes:      make(map[string]*Node),
		kids:       make(map[string]map[string]struct{}),
		unreported: make(map[string]*Node),
		watches:    newOneShot(c),
		inbox:      queue.New[input](),
		outbox:     newOutbox(),
		events:     make(chan Event),
		stop:       make(chan struct{}),
		met:        newEventMetrics(c, kind),
	}, nil
}

// start loads the tree (reporting every node as added, then Initialized)
// and then follows it in the background. A failed load leaves the engine
// unstarted; close ends a load under way.
func (e *engine) start(ctx context.Context) error {
	if err := e.life.Start(e.root); err != nil {
		return err
	}
	e.handoff.Lock()
	if e.life.State() == lifecycle.Closed {
		e.handoff.Unlock()
		return fmt.Errorf("%w during the load of %s", ErrClosed, e.root)
	}
	e.wg.Add(1) // close waits for the load
	e.handoff.Unlock()
	defer e.wg.Done()

	// This attempt's inputs queue apart: a failed load drops them whole, with
	// any that a listener call already under way still pushes.
	inbox := queue.New[input]()
	stopEvents := e.c.ListenNodeEvents(func(ev zk.Event) { inbox.Push(input{event: ev}) })
	stopStates := e.c.Listen(func(s framework.ConnectionState) { e.onConnection(inbox, s) })
	loadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopLink := context.AfterFunc(e.ctx, cancel)
	defer stopLink()
	err := e.refresh(loadCtx, []top{{path: e.root}}, true)

	e.handoff.Lock()
	defer e.handoff.Unlock()
	if err != nil || e.life.State() == lifecycle.Closed {
		stopEvents()
		stopStates()
		e.forget()
		if !e.life.Unstart() { // close came first: the engine stays closed
			return fmt.Errorf("%w during the load of %s", ErrClosed, e.root)
		}
		return fmt.Errorf("cache: load %s: %w", e.root, err)
	}
	e.inbox = inbox
	e.stopInput = []func(){stopEvents, stopStates}
	e.outbox.Push(queued{t: Initialized})
	e.loaded.Store(true)
	e.pumping = true
	e.wg.Add(2)
	go func() { defer e.wg.Done(); e.pump() }()
	go func() { defer e.wg.Done(); e.run() }()
	return nil
}

// forget drops what a failed load left: the nodes it read and the events
// it queued for them, and its watches, whose notifications are no longer
// heard, so that a later load sets them again.
func (e *engine) forget() {
	e.watches.reset()
	e.mu.Lock()
	clear(e.nodes)
	clear(e.kids)
	clear(e.unreported)
	e.told = nil
	e.mu.Unlock()
	e.outbox.reset()
}

// close stops following the tree, ends a load under way and closes the
// events channel; its goroutines have ended when it returns. It reports
// whether this call closed the engine: closing again does nothing.
func (e *engine) close() (first bool) {
	if first, _ = e.life.Close(); !first {
		return false
	}
	e.handoff.Lock()
	for _, stop := range e.stopInput {
		stop()
	}
	close(e.stop)
	e.cancel()
	e.handoff.Unlock()
	e.wg.Wait() // the load, the loop and the pump
	if !e.pumping {
		close(e.events)
	}
	return true
}

// run applies what arrives in the inbox until the engine stops.
func (e *engine) run() {
	var retry <-chan time.Time
	resync := false
	for {
		select {
		case <-e.stop:
			return
		case <-retry:
		case <-e.inbox.Ready():
		}
		retry = nil
		var err error
		if resync, err = e.step(resync); err != nil {
			if e.ctx.Err() != nil {
				return
			}
			e.cfg.log.Debug("cache out of step; trying again", zap.String("root", e.root), zap.Error(err))
			retry = time.After(retryEvery)
		}
	}
}

// step takes the queued inputs and reads again what they made stale; it
// returns whether the whole tree must be read again on the next step.
// While the connection is down it reads nothing: the reconnect reads the
// whole tree again anyway.
func (e *engine) step(resync bool) (bool, error) {
	ctx, cancel := context.WithCancel(e.ctx)
	e.interrupt.Store(&cancel) // before taking the inputs: a later suspension ends the reads
	defer func() {
		e.interrupt.Store(nil)
		cancel()
	}()
	dirty := make(map[string]fired)
	for _, in := range e.inbox.TakeAll() {
		if in.isState {
			resync = e.onState(in.state) || resync
		} else if e.onEvent(in.event, dirty) {
			resync = true
		}
	}
	if e.down {
		return resync, nil
	}
	err := e.apply(ctx, resync, dirty)
	return err != nil, err
}

// onConnection queues a connection state in inbox for the loop and, when
// the connection is suspended or lost, ends the loop's reads under way, so
// that the state is reported at once rather than after a reconnect.
func (e *engine) onConnection(inbox *queue.Queue[input], s framework.ConnectionState) {
	inbox.Push(input{state: s, isState: true})
	if s == framework.Suspended || s == framework.Lost {
		if stop := e.interrupt.Load(); stop != nil {
			(*stop)()
		}
	}
}

// apply reads again the whole tree (resync) or the dirty nodes, in
// batches (see batches): the nodes of one batch are read together and
// applied in order of their paths, and a batch is read only once the one
// before it is applied. A node whose data watch alone fired, and whose
// child watch is still armed, has only its data read again.
func (e *engine) apply(ctx context.Context, resync bool, dirty map[string]fired) error {
	if resync {
		return e.refresh(ctx, []top{{path: e.root}}, true)
	}
	for _, batch := range e.batches(dirty) {
		tops := make([]top, 0, len(batch))
		for _, p := range batch {
			if p != e.root && !e.holds(p) {
				continue // not ours: its parent's child watch reports it
			}
			dataOnly := dirty[p] == firedData && e.watches.childrenWatched(p)
			tops = append(tops, top{path: p, dataOnly: dataOnly})
		}
		if err := e.refresh(ctx, tops, false); err != nil {
			return err
		}
	}
	return nil
}

// batches splits the dirty paths by how many dirty ancestors each has, each
// batch sorted: no path of a batch is an ancestor of another, so applying
// the read of one never changes what is held at or below another (only its
// own subtree, and its parent's set of children, a parent not in the
// batch). A path below a dirty one comes in a later batch, read after
// that ancestor's read was applied, when whether the cache holds it is
// known again.
func (e *engine) batches(dirty map[string]fired) [][]string {
	var out [][]string
	for p := range dirty {
		level := 0
		for q := p; q != e.root && q != "/"; {
			q = parentOf(q)
			if _, ok := dirty[q]; ok {
				level++
			}
		}
		for len(out) <= level {
			out = append(out, nil)
		}
		out[level] = append(out[level], p)
	}
	for _, batch := range out {
		slices.Sort(batch)
	}
	return out
}

// onState reports a connection change and whether the tree must be read
// again. A connection notice that does not follow a suspension (the client's
// first Connected, still queued when the cache started) is no change.
func (e *engine) onState(s framework.ConnectionState) bool {
	switch s {
	case framework.Suspended:
		e.down = true
		e.outbox.Push(queued{t: ConnectionSuspended})
	case framework.Lost:
		e.down = true
		e.watches.reset() // the session's watches are gone
		e.outbox.Push(queued{t: ConnectionLost})
	case framework.Reconnected, framework.Connected:
		if !e.down {
			return false
		}
		e.down = false
		e.outbox.Push(queued{t: ConnectionReconnected})
		return true
	}
	return false
}

// fired is which of a node's watches fired during one step.
type fired uint8

const (
	firedData  fired = 1 << iota // the data watch: the data changed
	firedOther                   // children changed, or the node was created or deleted
)

// onEvent notes which watch fired and marks the node to read again. It
// reports whether every watch was dropped (the session ended), so that the
// whole tree must be read again.
func (e *engine) onEvent(ev zk.Event, dirty map[string]fired) bool {
	if ev.Type == zk.EventNotWatching {
		e.watches.reset()
		return true
	}
	if !e.within(ev.Path) {
		return false
	}
	e.watches.notified(ev)
	if ev.Type == zk.EventNodeDataChanged {
		dirty[ev.Path] |= firedData
	} else {
		dirty[ev.Path] |= firedOther
	}
	return false
}

// within reports whether p is the root or below it, down to maxDepth.
func (e *engine) within(p string) bool {
	d := e.depth(p)
	return d >= 0 && (e.cfg.maxDepth < 0 || d <= e.cfg.maxDepth)
}

// depth is p's level below the root (0 for the root), or -1 when p is not
// in the root's subtree.
func (e *engine) depth(p string) int {
	switch {
	case p == e.root:
		return 0
	case e.root == "/" && strings.HasPrefix(p, "/"):
		return strings.Count(p, "/")
	case strings.HasPrefix(p, e.root+"/"):
		return strings.Count(p[len(e.root):], "/")
	}
	return -1
}
