package cache

import (
	"context"
	"fmt"
	"sync"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/listen"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// CuratorCache holds a node and its whole subtree (or the node alone, with
// WithSingleNodeCache), as Curator 5's CuratorCache, and tells its Listeners
// of every change: NodeCreated, NodeChanged (only for a new data version)
// and NodeDeleted, and once Initialized after the first load.
//
// As Curator's, it follows the tree through one persistent recursive watch
// (ZooKeeper 3.6's addWatch) and falls back to one-shot watches on older
// servers; WithOneShotWatches forces them, and Mode tells which is in use.
type CuratorCache struct {
	e         *engine
	listeners listen.Set[Event]

	// handoff orders the start of dispatch against Close, which waits for
	// it (wg) once the engine is closed.
	handoff sync.Mutex
	wg      sync.WaitGroup
}

// NewCuratorCache returns a cache of the subtree at path (which need not
// exist; "/" is allowed). It makes no network call; a nil client, an invalid
// path or a bad option is an error naming it. It takes WithSingleNodeCache,
// WithDoNotClearOnClose, WithoutData (Curator's withDataNotCached),
// WithSelector, WithMaxDepth, WithOneShotWatches and WithLogger. To read
// data that Curator wrote compressed (Curator's COMPRESSED_DATA), give it
// c.Compressed(); a node whose data then does not decompress is held
// without data, and logged.
func NewCuratorCache(c *framework.Client, path string, opts ...Option) (*CuratorCache, error) {
	cfg, err := newConfig(path, -1, opts)
	if err != nil {
		return nil, err
	}
	if cfg.singleNode {
		if cfg.depthSet && cfg.maxDepth != 0 {
			return nil, fmt.Errorf("%w: a single node cache of %q has no depth (max depth %d)", ErrInvalidArgument, path, cfg.maxDepth)
		}
		cfg.maxDepth = 0
	}
	e, err := newEngine(c, "curator", path, cfg, false)
	if err != nil {
		return nil, err
	}
	if !cfg.oneShot {
		e.wantRecursive = true
		e.mode.Store(int32(RecursiveWatch))
	}
	return &CuratorCache{e: e}, nil
}

// Mode returns how the cache follows its tree: from a Start that succeeded
// on, RecursiveWatch when the server supports persistent watches (ZooKeeper
// 3.6+) and the client holds no persistent watch of the other mode on the
// root, OneShotWatches otherwise or under WithOneShotWatches; before, the
// mode Start will try first.
func (cc *CuratorCache) Mode() WatchMode { return WatchMode(cc.e.mode.Load()) }

// Listen adds l, which from then on is told of every change, in the order
// the cache applied them, on one goroutine of the cache's: a listener that
// blocks delays the others (never the cache, whose backlog stays bounded;
// see the package documentation) and must not call Close. The returned stop
// removes l: it is idempotent, and no call of l begins after it returns. A
// nil l adds nothing, and on a closed cache l is never called.
func (cc *CuratorCache) Listen(l Listener) (stop func()) {
	if l == nil {
		return func() {}
	}
	return cc.listeners.Add(func(ev Event) {
		switch ev.Type {
		case NodeAdded:
			l.Event(NodeCreated, Node{}, ev.Node)
		case NodeUpdated:
			l.Event(NodeChanged, ev.Old, ev.Node)
		case NodeRemoved:
			l.Event(NodeDeleted, ev.Node, Node{})
		case Initialized:
			l.Initialized()
		}
	})
}

// Start loads the subtree, telling the listeners of each node as created and
// then Initialized, and follows it until Close. It returns once the load is
// complete (the listeners may still be catching up), or ctx's error (the
// cache can then be started again), or ErrClosed; on a closed client the
// error matches framework.ErrClosed. A second Start returns
// ErrAlreadyStarted.
func (cc *CuratorCache) Start(ctx context.Context) error {
	if err := cc.e.start(ctx); err != nil {
		return err
	}
	cc.handoff.Lock()
	defer cc.handoff.Unlock()
	if cc.e.life.State() != lifecycle.Closed {
		cc.wg.Add(1)
		go func() { defer cc.wg.Done(); cc.dispatch() }()
	}
	return nil
}

// dispatch hands the engine's events to the listeners until the events
// channel closes. Connection events are not the listeners' (as in Curator,
// they belong to the client's connection state listeners): the adapters
// Listen builds ignore them.
func (cc *CuratorCache) dispatch() {
	for ev := range cc.e.events {
		cc.listeners.Deliver(ev)
	}
}

// Get returns the node at path as the cache holds it.
func (cc *CuratorCache) Get(path string) (Node, bool) { return cc.e.current(path) }

// Size returns how many nodes the cache holds.
func (cc *CuratorCache) Size() int {
	cc.e.mu.RLock()
	defer cc.e.mu.RUnlock()
	return len(cc.e.nodes)
}

// Snapshot returns every node the cache holds, sorted by path (Curator's
// stream()).
func (cc *CuratorCache) Snapshot() []Node { return cc.e.snapshot() }

// Children returns the names of the children of path that the cache holds,
// sorted.
func (cc *CuratorCache) Children(path string) []string { return cc.e.childNames(path) }

// Close stops following the subtree, ending a Start under way; it waits for
// a listener call under way, no listener is called once it returns, and its
// goroutines have ended. It empties the
// cache unless WithDoNotClearOnClose was given. Close is idempotent.
func (cc *CuratorCache) Close() error {
	if !cc.e.close() {
		return nil
	}
	cc.handoff.Lock() // a Start past its check has added dispatch to wg
	cc.handoff.Unlock()
	cc.wg.Wait()
	cc.listeners.Clear()
	if !cc.e.cfg.keepOnClose {
		cc.e.empty()
	}
	return nil
}
