package main

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
// refuses writes that carry an older one. It is safe for concurrent use.
type fencedStore struct {
	mu      sync.Mutex
	highest int64
	value   string
}

// Write stores value if token is at least the highest token seen so far.
func (s *fencedStore) Write(token int64, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if token < s.highest {
		return fmt.Errorf("%w: %d is older than %d", errStaleToken, token, s.highest)
	}
	s.highest = token
	s.value = value
	return nil
}

// Read returns the stored value.
func (s *fencedStore) Read() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value
}
