package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// DistributedDelayQueue is Curator's DistributedDelayQueue: each item
// carries the time (epoch milliseconds, in its node name) before which no
// consumer takes it; due items are taken in due-time order. It is safe for
// concurrent use.
type DistributedDelayQueue[T any] struct {
	e *engine
	s Serializer[T]
}

// NewDistributedDelayQueue returns the delay queue at path; see
// NewDistributedQueue for the errors.
func NewDistributedDelayQueue[T any](c *framework.Client, path string, s Serializer[T], opts ...Option) (*DistributedDelayQueue[T], error) {
	e, err := newTyped("distributed delay queue", c, path, s, delayNaming, opts)
	if err != nil {
		return nil, err
	}
	return &DistributedDelayQueue[T]{e: e, s: s}, nil
}

// Start is DistributedQueue.Start.
func (q *DistributedDelayQueue[T]) Start(ctx context.Context) error { return q.e.start(ctx) }

// Close is DistributedQueue.Close.
func (q *DistributedDelayQueue[T]) Close() error { return q.e.close() }

// Put adds item, to be taken no earlier than until (at millisecond
// precision). A time in the past is accepted and the item is due at once,
// as in Curator; a time at or before the Unix epoch is an
// ErrInvalidArgument, as Curator's "delayUntilEpoch cannot be negative".
func (q *DistributedDelayQueue[T]) Put(ctx context.Context, item T, until time.Time) (string, error) {
	return q.PutMulti(ctx, []T{item}, until)
}

// PutMulti adds items in one node, to be taken no earlier than until; see
// Put and DistributedQueue.PutMulti.
func (q *DistributedDelayQueue[T]) PutMulti(ctx context.Context, items []T, until time.Time) (string, error) {
	ms := until.UnixMilli()
	if ms <= 0 {
		return "", fmt.Errorf("%w: delay until %v (epoch ms %d) for the %s at %s: must be after the Unix epoch",
			ErrInvalidArgument, until, ms, q.e.kind, q.e.path)
	}
	return putItems(ctx, q.e, q.s, delayPrefix(ms), items)
}
