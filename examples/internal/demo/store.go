package demo

import (
	"errors"
	"fmt"
	"sync"
)

// errStaleToken is the storage's refusal of a write whose fencing token is
// older than one it has already accepted.
var errStaleToken = errors.New("stale fencing token")

// fencedStore stands for any storage service that takes a fencing token with
// each write, as a database row with a token column or an object store with a
// conditional put would: it remembers the highest token it has accepted and
// refuses writes that carry an older one.
type fencedStore struct {
	mu      sync.Mutex
	highest int64
	value   string
}

// write stores value if token is at least the highest token seen so far.
func (s *fencedStore) write(token int64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.highest {
		return fmt.Errorf("%w: %d is older than %d", errStaleToken, token, s.highest)
	}
	s.highest = token
	s.value = value
	return nil
}

// read returns the stored value.
func (s *fencedStore) read() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value
}
