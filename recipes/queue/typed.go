package queue

import (
	"context"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// newTyped validates a queue of T and returns its engine, with the
// consumer wired to s.
func newTyped[T any](kind string, c *framework.Client, path string, s Serializer[T], n naming, opts []Option) (*engine, error) {
	cfg, consumer, err := buildConfig(kind, c, path, s, opts)
	if err != nil {
		return nil, err
	}
	e := newEngine(kind, c, path, cfg, n)
	if consumer != nil {
		e.consume = func(ctx context.Context, name string, data []byte) (itemResult, []byte) {
			return consumeItems(e, s, consumer, ctx, name, data)
		}
	}
	return e, nil
}

// envelope serializes items and validates the put (name and size) before
// any network call.
func envelope[T any](e *engine, s Serializer[T], prefix string, items []T) ([]byte, error) {
	raws := make([][]byte, len(items))
	for i, it := range items {
		b, err := s.Serialize(it)
		if err != nil {
			return nil, fmt.Errorf("%w: item %d for the %s at %s cannot be serialized: %w", ErrInvalidArgument, i, e.kind, e.path, err)
		}
		raws[i] = b
	}
	return e.prepare(prefix, raws)
}

// putItems is the put every typed queue makes.
func putItems[T any](ctx context.Context, e *engine, s Serializer[T], prefix string, items []T) (string, error) {
	data, err := envelope(e, s, prefix, items)
	if err != nil {
		return "", err
	}
	return e.put(ctx, prefix, data)
}
