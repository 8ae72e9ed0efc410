package shared

import (
	"bytes"
	"context"

	"github.com/zkcurator/zkcurator/framework"
)

// SharedValue is Curator's SharedValue: bytes in one node, followed through a
// watch and updated by any participant. It is safe for concurrent use.
type SharedValue struct {
	k *core[[]byte]
}

// NewSharedValue returns the shared value at path; seed is written by Start
// if the node does not exist yet.
func NewSharedValue(c *framework.Client, path string, seed []byte) (*SharedValue, error) {
	k, err := newCore(c, path, bytes.Clone(seed), func(_ string, b []byte) ([]byte, error) { return b, nil })
	if err != nil {
		return nil, err
	}
	return &SharedValue{k: k}, nil
}

// Start creates the node with the seed if needed, reads the value and begins
// following it. It may be called once; on a closed client it returns an
// error matching framework.ErrClosed.
func (s *SharedValue) Start(ctx context.Context) error { return s.k.start(ctx) }

// Value returns the latest value seen and its version; zero before Start.
// The bytes must not be modified.
func (s *SharedValue) Value() VersionedValue[[]byte] { return s.k.value() }

// Set writes value whatever the node's version.
func (s *SharedValue) Set(ctx context.Context, value []byte) error {
	return s.k.set(ctx, bytes.Clone(nonNil(value)))
}

// TrySet writes value only if the node's version is version. It reports true
// when the write applied (exactly once), false and a nil error when the
// version was stale (Value is then refreshed), and an error matching
// ErrOutcomeUnknown when the reply was lost.
func (s *SharedValue) TrySet(ctx context.Context, value []byte, version int32) (bool, error) {
	return s.k.trySet(ctx, bytes.Clone(nonNil(value)), version)
}

// Changes returns the channel of values adopted after Start, in order; see
// the package documentation. Close closes it.
func (s *SharedValue) Changes() <-chan VersionedValue[[]byte] { return s.k.changes }

// Close stops following the node and closes Changes. It is idempotent: a
// second Close, or one before Start (after which Start returns ErrClosed),
// returns nil.
func (s *SharedValue) Close() error { return s.k.close() }

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
