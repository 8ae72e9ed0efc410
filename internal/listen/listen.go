// Package listen holds the one listener registry of the module: the client's
// connection-state and node-event listeners and every recipe's listeners are
// a Set. A Set calls its listeners in registration order; a listener removed
// before its turn is skipped, even when an earlier listener removed it.
package listen

import "sync"

// entry is one registered callback; removed is guarded by Set.mu.
type entry[T any] struct {
	fn      func(T)
	removed bool
}

// Set is a list of callbacks, safe for concurrent use. Its zero value is
// empty and ready.
type Set[T any] struct {
	mu   sync.Mutex
	list []*entry[T]
}

// Add registers fn and returns its stop, which is idempotent, may be called
// from within fn, and once it returns no new call to fn starts (a call under
// way is not waited for). Add(nil) registers nothing and returns a no-op stop;
// callers that must refuse nil check it first.
func (s *Set[T]) Add(fn func(T)) (stop func()) {
	if fn == nil {
		return func() {}
	}
	e := &entry[T]{fn: fn}
	s.mu.Lock()
	s.list = append(s.list, e)
	s.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { s.remove(e) }) }
}

func (s *Set[T]) remove(e *entry[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.removed = true
	for i, x := range s.list {
		if x == e {
			s.list = append(s.list[:i:i], s.list[i+1:]...)
			return
		}
	}
}

// Deliver calls every current listener with v, in registration order, on
// the caller's goroutine.
func (s *Set[T]) Deliver(v T) {
	s.mu.Lock()
	list := s.list
	s.mu.Unlock()
	for _, e := range list {
		s.mu.Lock()
		removed := e.removed
		s.mu.Unlock()
		if !removed {
			e.fn(v)
		}
	}
}

// Len reports how many listeners are registered.
func (s *Set[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list)
}

// Clear removes every listener, as a recipe's Close does.
func (s *Set[T]) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.list {
		e.removed = true
	}
	s.list = nil
}
