package queue

import (
	"context"

	"github.com/zkcurator/zkcurator/framework"
)

// DistributedQueue is Curator's DistributedQueue: items are
// PERSISTENT_SEQUENTIAL "queue-" nodes taken in sequence order (FIFO for a
// single consumer). It is safe for concurrent use.
type DistributedQueue[T any] struct {
	e *engine
	s Serializer[T]
}

// NewDistributedQueue returns the queue at path, or an error matching
// ErrInvalidArgument for a nil client or serializer, a bad path or a bad
// option. It makes no network call.
func NewDistributedQueue[T any](c *framework.Client, path string, s Serializer[T], opts ...Option) (*DistributedQueue[T], error) {
	e, err := newTyped("distributed queue", c, path, s, fifoNaming, opts)
	if err != nil {
		return nil, err
	}
	return &DistributedQueue[T]{e: e, s: s}, nil
}

// Start creates the queue node (and the lock path), and starts consuming if
// the queue has a consumer.
func (q *DistributedQueue[T]) Start(ctx context.Context) error { return q.e.start(ctx) }

// Close stops consuming and returns once the consumer loop has ended: the
// item being consumed gets a cancelled ctx and, in lock path mode, stays in
// the queue unless its consumer returned nil.
func (q *DistributedQueue[T]) Close() error { return q.e.close() }

// Put adds item and returns its node's path. A bounded queue waits for room
// within ctx. A put whose reply was lost returns ErrOutcomeUnknown and is
// not sent again.
func (q *DistributedQueue[T]) Put(ctx context.Context, item T) (string, error) {
	return putItems(ctx, q.e, q.s, itemPrefix, []T{item})
}

// PutMulti adds items in one node (Curator's putMulti): a consumer receives
// them one after the other, and they leave the queue together.
func (q *DistributedQueue[T]) PutMulti(ctx context.Context, items []T) (string, error) {
	return putItems(ctx, q.e, q.s, itemPrefix, items)
}
