package atomic

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// DistributedAtomicLong is Curator's DistributedAtomicLong: an int64 kept in
// one node as 8 big-endian bytes, updated atomically. Arithmetic wraps around
// on overflow, as Java's long does. It is safe for concurrent use.
type DistributedAtomicLong struct {
	v *DistributedAtomicValue
}

// NewDistributedAtomicLong returns the counter stored at path. A missing
// node reads as 0 and is created by the first update.
func NewDistributedAtomicLong(c *framework.Client, path string, opts ...Option) (*DistributedAtomicLong, error) {
	v, err := NewDistributedAtomicValue(c, path, opts...)
	if err != nil {
		return nil, err
	}
	return &DistributedAtomicLong{v: v}, nil
}

// Path returns the node's path.
func (l *DistributedAtomicLong) Path() string { return l.v.path }

// Get returns the current value as both PreValue and PostValue.
func (l *DistributedAtomicLong) Get(ctx context.Context) (AtomicValue[int64], error) {
	r, err := l.v.Get(ctx)
	if err != nil {
		return AtomicValue[int64]{}, err
	}
	return l.convert(r)
}

// Increment adds 1; see Add.
func (l *DistributedAtomicLong) Increment(ctx context.Context) (AtomicValue[int64], error) {
	return l.Add(ctx, 1)
}

// Decrement subtracts 1; see Add.
func (l *DistributedAtomicLong) Decrement(ctx context.Context) (AtomicValue[int64], error) {
	return l.Add(ctx, -1)
}

// Subtract subtracts delta; see Add.
func (l *DistributedAtomicLong) Subtract(ctx context.Context, delta int64) (AtomicValue[int64], error) {
	return l.Add(ctx, -delta)
}

// Add adds delta to the value (a missing node counts as 0). With Succeeded
// true it applied exactly once, PreValue and PostValue framing it; with an
// error matching ErrOutcomeUnknown it may have applied once; otherwise it
// did not apply.
func (l *DistributedAtomicLong) Add(ctx context.Context, delta int64) (AtomicValue[int64], error) {
	r, err := l.v.update(ctx, func(cur []byte, _ bool) ([]byte, error) {
		n, err := decodeLong(l.v.path, cur)
		if err != nil {
			return nil, err
		}
		return encodeLong(n + delta), nil
	})
	return l.result(r, err)
}

// CompareAndSet sets the value to newValue if it currently is expected, in one
// versioned write. A missing node never matches.
func (l *DistributedAtomicLong) CompareAndSet(ctx context.Context, expected, newValue int64) (AtomicValue[int64], error) {
	r, err := l.v.compareAndSet(ctx, func(cur []byte) (bool, error) {
		n, err := decodeLong(l.v.path, cur)
		return err == nil && n == expected, err
	}, encodeLong(newValue))
	return l.result(r, err)
}

// TrySet sets the value to newValue unless other updates keep intervening
// beyond what the retry policy (and promoted lock) allow.
func (l *DistributedAtomicLong) TrySet(ctx context.Context, newValue int64) (AtomicValue[int64], error) {
	r, err := l.v.TrySet(ctx, encodeLong(newValue))
	return l.result(r, err)
}

// ForceSet sets the value to newValue whatever it was.
func (l *DistributedAtomicLong) ForceSet(ctx context.Context, newValue int64) error {
	return l.v.ForceSet(ctx, encodeLong(newValue))
}

// Initialize creates the node with value if it does not exist and reports
// whether this call created it.
func (l *DistributedAtomicLong) Initialize(ctx context.Context, value int64) (bool, error) {
	return l.v.Initialize(ctx, encodeLong(value))
}

// result converts r, keeping err; a conversion error is reported only when
// err is nil.
func (l *DistributedAtomicLong) result(r AtomicValue[[]byte], err error) (AtomicValue[int64], error) {
	out, cerr := l.convert(r)
	if err != nil {
		return out, err
	}
	return out, cerr
}

func (l *DistributedAtomicLong) convert(r AtomicValue[[]byte]) (AtomicValue[int64], error) {
	out := AtomicValue[int64]{Succeeded: r.Succeeded, Stats: r.Stats}
	var err error
	if out.PreValue, err = decodeLong(l.v.path, r.PreValue); err != nil {
		return out, err
	}
	out.PostValue, err = decodeLong(l.v.path, r.PostValue)
	return out, err
}

// encodeLong is Curator's encoding: 8 bytes, big-endian.
func encodeLong(n int64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), uint64(n))
}

// decodeLong reads Curator's encoding; no data (a missing or empty node) is 0.
func decodeLong(path string, b []byte) (int64, error) {
	switch len(b) {
	case 0:
		return 0, nil
	case 8:
		return int64(binary.BigEndian.Uint64(b)), nil
	}
	return 0, fmt.Errorf("%w: %s holds %d bytes, want 8 (a big-endian long)", ErrBadValue, path, len(b))
}
