package framework

import "sync"

// listener is one registered callback; removed is guarded by listenerSet.mu.
type listener[T any] struct {
	fn      func(T)
	removed bool
}

// listenerSet holds the callbacks registered with Listen (or
// ListenNodeEvents), in registration order.
type listenerSet[T any] struct {
	mu   sync.Mutex
	list []*listener[T]
}

func (s *listenerSet[T]) add(fn func(T)) func() {
	l := &listener[T]{fn: fn}
	s.mu.Lock()
	s.list = append(s.list, l)
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			l.removed = true
			for i, x := range s.list {
				if x == l {
					s.list = append(s.list[:i:i], s.list[i+1:]...)
					break
				}
			}
		})
	}
}

// deliver calls every current listener with st, in registration order. A listener
// removed before its turn (even by an earlier listener) is skipped.
func (s *listenerSet[T]) deliver(v T) {
	s.mu.Lock()
	list := s.list
	s.mu.Unlock()
	for _, l := range list {
		s.mu.Lock()
		removed := l.removed
		s.mu.Unlock()
		if !removed {
			l.fn(v)
		}
	}
}

// Listen registers fn to be told of every connection state change, as Curator's
// ConnectionStateListener. Calls happen in order on one goroutine of the client (never
// on go-zookeeper's), no change is dropped however slow fn is, and a slow fn delays only
// later calls to listeners, not the connection or operations. The returned stop is
// idempotent and may be called from within fn; once it returns no new call to fn
// starts (a call already under way is not waited for). fn must not call Close.
func (c *Client) Listen(fn func(ConnectionState)) (stop func()) {
	if fn == nil {
		return func() {}
	}
	return c.core.listeners.add(fn)
}

// empty reports whether no callback is registered.
func (s *listenerSet[T]) empty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list) == 0
}

// dispatch delivers queued state changes to the listeners until stop is closed.
func (k *core) dispatch(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-k.notices.Ready():
			for _, st := range k.notices.TakeAll() {
				select {
				case <-stop:
					return
				default:
				}
				k.listeners.deliver(st)
			}
		}
	}
}
