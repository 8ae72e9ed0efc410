package queue

import (
	"context"
	"fmt"
	"reflect"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/clock"
	"github.com/zkcurator/zkcurator/recipes/internal/apply"
)

// ErrorMode says what a lock-path consumer does with an item whose consumer
// returned an error (Curator's ErrorMode).
type ErrorMode int

const (
	// Requeue puts the item back at the end of the queue, keeping its id,
	// priority or due time, in one transaction with its deletion (the
	// default, as in Curator).
	Requeue ErrorMode = iota
	// Delete deletes the item anyway.
	Delete
)

func (m ErrorMode) String() string {
	switch m {
	case Requeue:
		return "REQUEUE"
	case Delete:
		return "DELETE"
	}
	return fmt.Sprintf("ErrorMode(%d)", int(m))
}

// Option configures a DistributedQueue, DistributedIDQueue,
// DistributedPriorityQueue or DistributedDelayQueue.
type Option func(*config)

type config struct {
	consumer     any
	lockPath     string
	lockPathSet  bool
	maxItems     int
	maxItemsSet  bool
	errorMode    ErrorMode
	errorModeSet bool
	// clock times the delay queue's due items and the pause after a failed
	// listing or take; nil is the wall clock. Only tests set it.
	clock clock.Clock
}

// Consumer is called with each item a queue takes. In lock path mode the
// item is deleted only after Consumer returned nil; ctx ends when the queue
// closes, when its client closes (cause framework.ErrClosed) or, in lock
// path mode, when the item's lock can no longer be trusted (cause
// ErrItemLost).
type Consumer[T any] func(ctx context.Context, item T) error

// WithConsumer makes the queue a consumer: Start begins taking items and
// calls fn with each, one at a time, in the queue's order. Without it the
// queue only puts. fn's item type must be the queue's.
func WithConsumer[T any](fn Consumer[T]) Option {
	return func(c *config) { c.consumer = fn }
}

// WithLockPath turns on Curator's lock safety: before it takes an item a
// consumer creates the ephemeral node "<lockPath>/<item name>", and it
// deletes the item only after its consumer returned. An item whose consumer
// dies (its session ends) stays in the queue and is taken again. Every
// consumer of one queue must use the same lock path.
func WithLockPath(path string) Option {
	return func(c *config) { c.lockPath, c.lockPathSet = path, true }
}

// WithMaxItems bounds the queue: a put waits, within its ctx, while the
// queue path has n or more children (Curator's maxItems). n must be
// positive.
func WithMaxItems(n int) Option {
	return func(c *config) { c.maxItems, c.maxItemsSet = n, true }
}

// WithErrorMode sets what a lock-path consumer does when its consumer
// returns an error (default Requeue). It needs WithLockPath.
func WithErrorMode(m ErrorMode) Option {
	return func(c *config) { c.errorMode, c.errorModeSet = m, true }
}

// buildConfig runs opts and validates the whole config for a queue of T at
// path; every error matches ErrInvalidArgument and names the value.
func buildConfig[T any](kind string, c *framework.Client, path string, s Serializer[T], opts []Option) (config, Consumer[T], error) {
	var cfg config
	if c == nil {
		return cfg, nil, fmt.Errorf("%w: nil client for the %s at %q", ErrInvalidArgument, kind, path)
	}
	if err := validatePath(kind, path); err != nil {
		return cfg, nil, err
	}
	if s == nil || reflect.ValueOf(s).Kind() == reflect.Pointer && reflect.ValueOf(s).IsNil() {
		return cfg, nil, fmt.Errorf("%w: nil serializer for the %s at %q", ErrInvalidArgument, kind, path)
	}
	if err := apply.Options(&cfg, opts, ErrInvalidArgument, fmt.Sprintf("the %s at %q", kind, path)); err != nil {
		return cfg, nil, err
	}
	var consumer Consumer[T]
	switch fn := cfg.consumer.(type) {
	case nil:
	case Consumer[T]:
		if fn == nil {
			return cfg, nil, fmt.Errorf("%w: nil consumer for the %s at %q", ErrInvalidArgument, kind, path)
		}
		consumer = fn
	default:
		var zero T
		return cfg, nil, fmt.Errorf("%w: consumer %T for the %s at %q, whose items are %T", ErrInvalidArgument, fn, kind, path, zero)
	}
	if cfg.lockPathSet && cfg.lockPath == "" {
		return cfg, nil, fmt.Errorf("%w: lock path \"\" for the %s at %q (leave WithLockPath out for no lock path)", ErrInvalidArgument, kind, path)
	}
	if cfg.lockPath != "" {
		if err := validatePath(kind+" lock", cfg.lockPath); err != nil {
			return cfg, nil, err
		}
		if cfg.lockPath == path {
			return cfg, nil, fmt.Errorf("%w: lock path %q is the queue path itself", ErrInvalidArgument, cfg.lockPath)
		}
	}
	if cfg.maxItemsSet && cfg.maxItems <= 0 {
		return cfg, nil, fmt.Errorf("%w: maxItems %d for the %s at %q must be positive", ErrInvalidArgument, cfg.maxItems, kind, path)
	}
	if cfg.errorModeSet {
		if cfg.errorMode != Requeue && cfg.errorMode != Delete {
			return cfg, nil, fmt.Errorf("%w: error mode %v", ErrInvalidArgument, cfg.errorMode)
		}
		if cfg.lockPath == "" {
			return cfg, nil, fmt.Errorf("%w: error mode %v for the %s at %q needs WithLockPath", ErrInvalidArgument, cfg.errorMode, kind, path)
		}
	}
	return cfg, consumer, nil
}

func validatePath(kind, path string) error {
	if err := framework.ValidatePath(path); err != nil {
		return fmt.Errorf("%w: %s path: %w", ErrInvalidArgument, kind, err)
	}
	if path == "/" {
		return fmt.Errorf("%w: %s path %q: the queue needs a node of its own", ErrInvalidArgument, kind, path)
	}
	return nil
}
