package shared

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// SharedCount is Curator's SharedCount: an int32 kept in one node as 4
// big-endian bytes, followed through a watch and updated by any participant.
// It is safe for concurrent use.
type SharedCount struct {
	k *core[int32]
}

// NewSharedCount returns the shared count at path; seed is written by Start
// if the node does not exist yet.
func NewSharedCount(c *framework.Client, path string, seed int32) (*SharedCount, error) {
	k, err := newCore(c, path, encodeCount(seed), decodeCount)
	if err != nil {
		return nil, err
	}
	return &SharedCount{k: k}, nil
}

// Start creates the node with the seed if needed, reads the count and begins
// following it. It fails with ErrBadValue if the node does not hold 4 bytes,
// and with an error matching framework.ErrClosed on a closed client.
func (s *SharedCount) Start(ctx context.Context) error { return s.k.start(ctx) }

// Count returns the latest count seen.
func (s *SharedCount) Count() int32 { return s.k.value().Value }

// VersionedValue returns the latest count seen and its version.
func (s *SharedCount) VersionedValue() VersionedValue[int32] { return s.k.value() }

// Set writes count whatever the node's version.
func (s *SharedCount) Set(ctx context.Context, count int32) error {
	return s.k.set(ctx, encodeCount(count))
}

// TrySet writes count only if the node's version is version: true when it
// applied exactly once, false and a nil error when the version was stale, an
// error matching ErrOutcomeUnknown when the reply was lost.
func (s *SharedCount) TrySet(ctx context.Context, count int32, version int32) (bool, error) {
	return s.k.trySet(ctx, encodeCount(count), version)
}

// Changes returns the channel of counts adopted after Start, in order; see
// the package documentation. Close closes it.
func (s *SharedCount) Changes() <-chan VersionedValue[int32] { return s.k.changes }

// Close stops following the node and closes Changes. It is idempotent: a
// second Close, or one before Start (after which Start returns ErrClosed),
// returns nil.
func (s *SharedCount) Close() error { return s.k.close() }

func encodeCount(n int32) []byte {
	return binary.BigEndian.AppendUint32(make([]byte, 0, 4), uint32(n))
}

func decodeCount(path string, b []byte) (int32, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("%w: %s holds %d bytes, want 4 (a big-endian int)", ErrBadValue, path, len(b))
	}
	return int32(binary.BigEndian.Uint32(b)), nil
}
