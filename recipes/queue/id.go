package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// DistributedIDQueue is Curator's DistributedIDQueue: a DistributedQueue
// whose items carry an id in their node name ("queue-|<id>|<sequence>"), so
// that they can be removed by id before a consumer takes them. Items are
// taken in sequence order. It is safe for concurrent use.
type DistributedIDQueue[T any] struct {
	e *engine
	s Serializer[T]
}

// NewDistributedIDQueue returns the id queue at path; see
// NewDistributedQueue for the errors.
func NewDistributedIDQueue[T any](c *framework.Client, path string, s Serializer[T], opts ...Option) (*DistributedIDQueue[T], error) {
	e, err := newTyped("distributed id queue", c, path, s, idNaming, opts)
	if err != nil {
		return nil, err
	}
	return &DistributedIDQueue[T]{e: e, s: s}, nil
}

// Start is DistributedQueue.Start.
func (q *DistributedIDQueue[T]) Start(ctx context.Context) error { return q.e.start(ctx) }

// Close is DistributedQueue.Close.
func (q *DistributedIDQueue[T]) Close() error { return q.e.close() }

// Put adds item under id, which must not be empty ('/' and '|' in it become
// '_', as in Curator); see DistributedQueue.Put.
func (q *DistributedIDQueue[T]) Put(ctx context.Context, item T, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("%w: empty id for the %s at %s", ErrInvalidArgument, q.e.kind, q.e.path)
	}
	return putItems(ctx, q.e, q.s, idPrefix(id), []T{item})
}

// Remove deletes the items with id that no consumer holds, and returns how
// many it deleted. In lock path mode it takes each item's lock first, as
// Curator does, so it never deletes an item a consumer is consuming.
func (q *DistributedIDQueue[T]) Remove(ctx context.Context, id string) (int, error) {
	if id == "" {
		return 0, fmt.Errorf("%w: empty id for the %s at %s", ErrInvalidArgument, q.e.kind, q.e.path)
	}
	if err := framework.ValidatePath(framework.JoinPath(q.e.path, idPrefix(id)) + "0000000000"); err != nil {
		return 0, fmt.Errorf("%w: id %q, which no item name can hold: %w", ErrInvalidArgument, id, err)
	}
	if err := q.e.checkStarted(); err != nil {
		return 0, err
	}
	children, _, err := q.e.c.Children(ctx, q.e.path)
	if err != nil {
		return 0, fmt.Errorf("queue: remove %q from the %s at %s: listing the items: %w", id, q.e.kind, q.e.path, err)
	}
	want := fixID(id)
	count := 0
	for _, name := range q.e.naming.sortItems(children) {
		if got, _ := parseID(name); got != want {
			continue
		}
		removed, err := q.e.remove(ctx, name)
		if err != nil {
			return count, fmt.Errorf("queue: remove %q from the %s at %s: %w", id, q.e.kind, q.e.path, err)
		}
		if removed {
			count++
		}
	}
	return count, nil
}

// remove deletes one item node, under its lock in lock path mode (Curator's
// tryRemove).
func (e *engine) remove(ctx context.Context, name string) (bool, error) {
	itemPath := framework.JoinPath(e.path, name)
	if e.cfg.lockPath == "" {
		err := e.c.Delete(ctx, itemPath)
		if errors.Is(err, zk.ErrNoNode) {
			return false, nil
		}
		return err == nil, err
	}
	lockNode := framework.JoinPath(e.cfg.lockPath, name)
	l, busy, err := e.lock(ctx, lockNode)
	owner := l.owner
	if err != nil || busy != nil || !owner.IsCurrent() {
		return false, err
	}
	defer e.unlock(ctx, l)
	if stat, err := e.c.Exists(ctx, itemPath); err != nil || stat == nil {
		return false, err
	}
	if err := e.finish(ctx, name, lockNode, owner, nil, itemDone); err != nil {
		return false, err
	}
	stat, err := e.c.Exists(ctx, itemPath)
	return err == nil && stat == nil, err
}
