package demo

import (
	"errors"
	"fmt"
	"sync"
)

// ErrStaleToken is the storage's refusal of a write whose fencing token is
// older than one it has already accepted.
var ErrStaleToken = errors.New("stale fencing token")

// FencedStore stands for any storage service that takes a fencing token with
// each write, as a database row with a token column or an object store with a
// conditional put would: it remembers the highest token it has accepted and
// refuses writes that carry an older one. It is safe for concurrent use.
type FencedStore struct {
	mu      sync.Mutex
	highest int64
	value   string
}

// Write stores value if token is at least the highest token seen so far.
func (s *FencedStore) Write(token int64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.highest {
		return fmt.Errorf("%w: %d is older than %d", ErrStaleToken, token, s.highest)
	}
	s.highest = token
	s.value = value
	return nil
}

// Read returns the stored value.
func (s *FencedStore) Read() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value
}
