package cache

import (
	"context"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// TreeCache holds a node and its subtree (down to WithMaxDepth levels, the
// paths WithSelector accepts), as Curator's TreeCache.
type TreeCache struct{ e *engine }

// NewTreeCache returns a cache of the subtree at path. It makes no network
// call; a nil client, an invalid path or a bad option is an error naming it.
func NewTreeCache(c *framework.Client, path string, opts ...Option) (*TreeCache, error) {
	e, err := newOlder(c, "tree", path, -1, opts)
	if err != nil {
		return nil, err
	}
	return &TreeCache{e}, nil
}

// newOlder builds the engine of one of the older caches, of kind (its
// metrics' label) at path: depth levels deep (-1: as WithMaxDepth says, else
// the whole subtree), taking none of CuratorCache's own options. The
// children cache reports its root's children only.
func newOlder(c *framework.Client, kind, path string, depth int, opts []Option) (*engine, error) {
	cfg, err := newConfig(path, depth, opts)
	if err != nil {
		return nil, err
	}
	if depth >= 0 && cfg.maxDepth != depth {
		return nil, fmt.Errorf("%w: a %s cache of %q is %d levels deep, not %d (WithMaxDepth)", ErrInvalidArgument, kind, path, depth, cfg.maxDepth)
	}
	if err := cfg.curatorOnly(kind, path); err != nil {
		return nil, err
	}
	return newEngine(c, kind, path, cfg, kind == "children")
}

// Start loads the subtree, reporting each node as NodeAdded and then
// Initialized, and follows it until Close. It returns once the load is
// complete, or ctx's error (the cache can then be started again), or
// ErrClosed when Close ends the load; on a closed client the error matches
// framework.ErrClosed. A failed Start leaves nothing behind: no goroutine,
// no listener on the client, no node held, no event queued.
func (t *TreeCache) Start(ctx context.Context) error { return t.e.start(ctx) }

// Events returns the cache's events: in the order the cache applied them,
// no change lost however slowly it is read (a consumer far behind is caught
// up by differences; see the package documentation), closed by Close.
func (t *TreeCache) Events() <-chan Event { return t.e.events }

// Current returns the node at path as the cache holds it.
func (t *TreeCache) Current(path string) (Node, bool) { return t.e.current(path) }

// Children returns the names of the children of path that the cache holds,
// sorted.
func (t *TreeCache) Children(path string) []string { return t.e.childNames(path) }

// Snapshot returns every node the cache holds, sorted by path.
func (t *TreeCache) Snapshot() []Node { return t.e.snapshot() }

// Close stops following the subtree, ending a Start under way, and closes
// the Events channel (events not yet received are dropped); its goroutines
// have ended when it returns. Close is idempotent: a second Close returns
// nil, as framework.Client.Close does.
func (t *TreeCache) Close() error { t.e.close(); return nil }

// NodeCache holds one node, as Curator's NodeCache: NodeAdded when it is
// created, NodeUpdated when its data changes, NodeRemoved when it is deleted.
type NodeCache struct{ e *engine }

// NewNodeCache returns a cache of the node at path (which need not exist).
// WithMaxDepth and WithSelector do not apply to it.
func NewNodeCache(c *framework.Client, path string, opts ...Option) (*NodeCache, error) {
	e, err := newOlder(c, "node", path, 0, opts)
	if err != nil {
		return nil, err
	}
	return &NodeCache{e}, nil
}

// Start reads the node and follows it until Close; see TreeCache.Start.
func (n *NodeCache) Start(ctx context.Context) error { return n.e.start(ctx) }

// Events returns the cache's events; see TreeCache.Events.
func (n *NodeCache) Events() <-chan Event { return n.e.events }

// Current returns the node as the cache holds it; false while it does not
// exist.
func (n *NodeCache) Current() (Node, bool) { return n.e.current(n.e.root) }

// Close stops following the node; see TreeCache.Close.
func (n *NodeCache) Close() error { n.e.close(); return nil }

// PathChildrenCache holds the children of a node with their data, as
// Curator's PathChildrenCache: events report the children only, never the
// parent itself.
type PathChildrenCache struct{ e *engine }

// NewPathChildrenCache returns a cache of the children of path. WithMaxDepth
// does not apply to it; WithSelector chooses the children.
func NewPathChildrenCache(c *framework.Client, path string, opts ...Option) (*PathChildrenCache, error) {
	e, err := newOlder(c, "children", path, 1, opts)
	if err != nil {
		return nil, err
	}
	return &PathChildrenCache{e}, nil
}

// Start loads the children and follows them until Close; see
// TreeCache.Start.
func (p *PathChildrenCache) Start(ctx context.Context) error { return p.e.start(ctx) }

// Events returns the cache's events; see TreeCache.Events.
func (p *PathChildrenCache) Events() <-chan Event { return p.e.events }

// Current returns the child at path as the cache holds it.
func (p *PathChildrenCache) Current(path string) (Node, bool) { return p.e.current(path) }

// Snapshot returns the children the cache holds, sorted by path.
func (p *PathChildrenCache) Snapshot() []Node { return p.e.snapshot() }

// Close stops following the children; see TreeCache.Close.
func (p *PathChildrenCache) Close() error { p.e.close(); return nil }
