package queue

import (
	"context"

	"github.com/zkcurator/zkcurator/framework"
)

// DistributedPriorityQueue is Curator's DistributedPriorityQueue: the
// priority is in the node name, and a consumer takes the lowest priority
// value first (FIFO within one priority). It is safe for concurrent use.
type DistributedPriorityQueue[T any] struct {
	e *engine
	s Serializer[T]
}

// NewDistributedPriorityQueue returns the priority queue at path; see
// NewDistributedQueue for the errors.
func NewDistributedPriorityQueue[T any](c *framework.Client, path string, s Serializer[T], opts ...Option) (*DistributedPriorityQueue[T], error) {
	e, err := newTyped("distributed priority queue", c, path, s, priorityNaming, opts)
	if err != nil {
		return nil, err
	}
	return &DistributedPriorityQueue[T]{e: e, s: s}, nil
}

// Start is DistributedQueue.Start.
func (q *DistributedPriorityQueue[T]) Start(ctx context.Context) error { return q.e.start(ctx) }

// Close is DistributedQueue.Close.
func (q *DistributedPriorityQueue[T]) Close() error { return q.e.close() }

// Put adds item with priority (lower is taken first); see
// DistributedQueue.Put.
func (q *DistributedPriorityQueue[T]) Put(ctx context.Context, item T, priority int32) (string, error) {
	return putItems(ctx, q.e, q.s, priorityPrefix(priority), []T{item})
}

// PutMulti adds items in one node with priority; see
// DistributedQueue.PutMulti.
func (q *DistributedPriorityQueue[T]) PutMulti(ctx context.Context, items []T, priority int32) (string, error) {
	return putItems(ctx, q.e, q.s, priorityPrefix(priority), items)
}
