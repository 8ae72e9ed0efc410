package barriers

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// DistributedBarrier is Curator's DistributedBarrier: while its node exists,
// Wait blocks. It is safe for concurrent use.
type DistributedBarrier struct {
	c    *framework.Client
	path string
}

// NewDistributedBarrier returns the barrier whose node is path, or an error
// matching ErrInvalidArgument for a nil client or a path that is invalid or
// the root. It makes no network call.
func NewDistributedBarrier(c *framework.Client, path string) (*DistributedBarrier, error) {
	if err := validate("barrier", c, path); err != nil {
		return nil, err
	}
	return &DistributedBarrier{c: c, path: path}, nil
}

// Set creates the barrier node (and its parents, as containers); an existing
// barrier is fine.
func (b *DistributedBarrier) Set(ctx context.Context) error {
	_, err := b.c.Create(ctx, b.path, nil, framework.CreatingParentContainersIfNeeded())
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("barriers: set %s: creating the barrier node: %w", b.path, err)
	}
	return nil
}

// Remove deletes the barrier node, releasing every waiter; a missing barrier
// is fine.
func (b *DistributedBarrier) Remove(ctx context.Context) error {
	err := b.c.Delete(ctx, b.path)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("barriers: remove %s: deleting the barrier node: %w", b.path, err)
	}
	return nil
}

// Wait returns nil once the barrier node does not exist, or ctx's error.
func (b *DistributedBarrier) Wait(ctx context.Context) error {
	back, stop := reconnects(b.c)
	defer stop()
	for {
		stat, watch, err := b.c.ExistsW(ctx, b.path)
		if err != nil {
			return fmt.Errorf("barriers: wait on %s: waiting for the barrier node to be removed: %w", b.path, err)
		}
		if stat == nil {
			return nil
		}
		select {
		case <-watch:
		case <-back:
		case <-ctx.Done():
			return fmt.Errorf("barriers: wait on %s: waiting for the barrier node to be removed: %w", b.path, ctx.Err())
		}
	}
}

// reconnects returns a channel that receives when the client reconnects or
// loses its session, and the function that stops it.
func reconnects(c *framework.Client) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	stop := c.Listen(func(st framework.ConnectionState) {
		if st == framework.Reconnected || st == framework.Lost {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	})
	return ch, stop
}

// validate checks what every barrier needs before any request; its errors
// match ErrInvalidArgument and name the value.
func validate(kind string, c *framework.Client, path string) error {
	if c == nil {
		return fmt.Errorf("%w: nil client for the %s at %q", ErrInvalidArgument, kind, path)
	}
	if err := framework.ValidatePath(path); err != nil {
		return fmt.Errorf("%w: %s path: %w", ErrInvalidArgument, kind, err)
	}
	if path == "/" {
		return fmt.Errorf("%w: %s path %q: the barrier needs a node of its own", ErrInvalidArgument, kind, path)
	}
	return nil
}
