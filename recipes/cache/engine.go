package cache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/queue"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

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

	watches transport // used by that goroutine and its refresh's readers; set by follow
	// wantRecursive: follow the tree through a persistent watch when the
	// server allows (CuratorCache); mode is the WatchMode in use (or, before
	// a Start, the one it will try).
	wantRecursive bool
	mode          atomic.Int32
	noMultiRead   atomic.Bool         // the server answered a multiRead as unknown (fetch_batch.go)
	down          bool                // a suspension or loss was reported, and no reconnect since
	deferred      map[string]fired    // the nodes notified while down, read after the reconnect
	inbox         *queue.Queue[input] // the inputs of the Start that succeeded
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
	e := &engine{
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
	}
	e.mode.Store(int32(OneShotWatches))
	return e, nil
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
	loadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopLink := context.AfterFunc(e.ctx, cancel)
	defer stopLink()
	stopStates := e.c.Listen(func(s framework.ConnectionState) { e.onConnection(inbox, s) })
	stopEvents, err := e.follow(loadCtx, inbox)
	if err == nil {
		err = e.refresh(loadCtx, []top{{path: e.root}}, true)
	}

	e.handoff.Lock()
	defer e.handoff.Unlock()
	if err != nil || e.life.State() == lifecycle.Closed {
		if stopEvents != nil {
			stopEvents()
		}
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
	e.empty()
	e.outbox.reset()
}

// empty drops every node held, as a failed load and CuratorCache's Close do.
func (e *engine) empty() {
	e.mu.Lock()
	defer e.mu.Unlock()
	clear(e.nodes)
	clear(e.kids)
	clear(e.unreported)
	e.told = nil
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
