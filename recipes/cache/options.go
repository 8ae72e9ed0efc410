package cache

import (
	"fmt"

	"go.uber.org/zap"
)

// Option configures a cache.
type Option func(*config) error

type config struct {
	data     bool
	maxDepth int // -1: no limit
	follow   func(path string) bool
	log      *zap.Logger
}

func newConfig(maxDepth int, opts []Option) (config, error) {
	cfg := config{data: true, maxDepth: maxDepth, follow: func(string) bool { return true }, log: zap.NewNop()}
	for i, o := range opts {
		if o == nil {
			return cfg, fmt.Errorf("%w: option %d is nil", ErrInvalidArgument, i)
		}
		if err := o(&cfg); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// WithoutData makes the cache keep only the nodes' Stats, not their data:
// NodeUpdated still reports every new data version.
func WithoutData() Option {
	return func(c *config) error { c.data = false; return nil }
}

// WithMaxDepth limits a TreeCache to the nodes at most depth levels below
// its root (0: the root only). Without it the whole subtree is cached.
func WithMaxDepth(depth int) Option {
	return func(c *config) error {
		if depth < 0 {
			return fmt.Errorf("%w: max depth %d is below 0", ErrInvalidArgument, depth)
		}
		c.maxDepth = depth
		return nil
	}
}

// WithSelector makes the cache hold a node below its root, and the subtree
// under it, only when follow returns true for the node's path (Curator's
// TreeCacheSelector.acceptChild). follow must be fast and must not block.
func WithSelector(follow func(path string) bool) Option {
	return func(c *config) error {
		if follow == nil {
			return fmt.Errorf("%w: nil selector", ErrInvalidArgument)
		}
		c.follow = follow
		return nil
	}
}

// WithLogger logs through log (a no-op logger by default).
func WithLogger(log *zap.Logger) Option {
	return func(c *config) error {
		if log == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalidArgument)
		}
		c.log = log
		return nil
	}
}
