package cache

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/recipes/internal/apply"
)

// Option configures a cache. An option only records its value; the
// constructor checks them all and reports a bad one as ErrInvalidArgument.
type Option func(*config)

type config struct {
	data     bool
	maxDepth int  // -1: no limit
	depthSet bool // WithMaxDepth was given
	follow   func(path string) bool
	log      *zap.Logger // nil: the client's

	// CuratorCache's own (Curator's CuratorCache.Options).
	singleNode  bool // SINGLE_NODE_CACHE
	keepOnClose bool // DO_NOT_CLEAR_ON_CLOSE
	oneShot     bool // WithOneShotWatches
}

// newConfig applies opts over the defaults of a cache of path whose depth
// is maxDepth unless an option says otherwise, and checks the result.
func newConfig(path string, maxDepth int, opts []Option) (config, error) {
	cfg := config{data: true, maxDepth: maxDepth, follow: func(string) bool { return true }}
	if err := apply.Options(&cfg, opts, ErrInvalidArgument, fmt.Sprintf("the cache of %q", path)); err != nil {
		return cfg, err
	}
	switch {
	case cfg.depthSet && cfg.maxDepth < 0:
		return cfg, fmt.Errorf("%w: max depth %d is below 0", ErrInvalidArgument, cfg.maxDepth)
	case cfg.follow == nil:
		return cfg, fmt.Errorf("%w: nil selector", ErrInvalidArgument)
	}
	return cfg, nil
}

// WithoutData makes the cache keep only the nodes' Stats, not their data:
// NodeUpdated still reports every new data version.
func WithoutData() Option {
	return func(c *config) { c.data = false }
}

// WithMaxDepth limits a TreeCache to the nodes at most depth levels below
// its root (0: the root only); depth must not be negative. Without it the
// whole subtree is cached.
func WithMaxDepth(depth int) Option {
	return func(c *config) { c.maxDepth, c.depthSet = depth, true }
}

// WithSelector makes the cache hold a node below its root, and the subtree
// under it, only when follow (not nil) returns true for the node's path
// (Curator's TreeCacheSelector.acceptChild). follow must be fast and must
// not block; calls to it never overlap.
func WithSelector(follow func(path string) bool) Option {
	return func(c *config) { c.follow = follow }
}

// WithLogger logs through log instead of the client's logger (nil keeps
// the client's).
//
// Deprecated: every recipe logs through its client's logger
// (docs/conventions.md): give the client the logger, with
// framework.WithLogger. WithLogger still works as before.
func WithLogger(log *zap.Logger) Option {
	return func(c *config) { c.log = log }
}

// WithSingleNodeCache makes a CuratorCache hold its root node only, as
// Curator's CuratorCache.Options.SINGLE_NODE_CACHE. Only NewCuratorCache
// takes it.
func WithSingleNodeCache() Option {
	return func(c *config) { c.singleNode = true }
}

// WithDoNotClearOnClose makes a CuratorCache keep what it holds after Close
// (Get, Size and Snapshot still answer, frozen), as Curator's
// CuratorCache.Options.DO_NOT_CLEAR_ON_CLOSE; by default Close empties it.
// Only NewCuratorCache takes it.
func WithDoNotClearOnClose() Option {
	return func(c *config) { c.keepOnClose = true }
}

// WithOneShotWatches makes a CuratorCache follow its tree through one-shot
// watches, as the older caches do, even on a server that supports
// persistent recursive watches (its Mode is then OneShotWatches). Only
// NewCuratorCache takes it.
func WithOneShotWatches() Option {
	return func(c *config) { c.oneShot = true }
}

// curatorOnly reports the CuratorCache options given to another cache.
func (c config) curatorOnly(kind, path string) error {
	switch {
	case c.singleNode:
		return fmt.Errorf("%w: WithSingleNodeCache is a CuratorCache option, not a %s cache's (%q)", ErrInvalidArgument, kind, path)
	case c.keepOnClose:
		return fmt.Errorf("%w: WithDoNotClearOnClose is a CuratorCache option, not a %s cache's (%q)", ErrInvalidArgument, kind, path)
	case c.oneShot:
		return fmt.Errorf("%w: WithOneShotWatches is a CuratorCache option, not a %s cache's (%q)", ErrInvalidArgument, kind, path)
	}
	return nil
}
