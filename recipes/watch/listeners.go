package watch

import "sync"

// listeners is a set of callbacks called in the order they were added. No
// call of a callback starts once its stop has returned; a callback may add
// or stop listeners itself.
type listeners[T any] struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(T)
	ids  []int
}

func (l *listeners[T]) add(fn func(T)) (stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = make(map[int]func(T))
	}
	id := l.next
	l.next++
	l.fns[id] = fn
	l.ids = append(l.ids, id)
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.fns, id)
	}
}

// call calls every live callback with v, on the caller's goroutine.
func (l *listeners[T]) call(v T) {
	l.mu.Lock()
	ids := append([]int(nil), l.ids...)
	l.mu.Unlock()
	for _, id := range ids {
		l.mu.Lock()
		fn, ok := l.fns[id]
		l.mu.Unlock()
		if ok {
			fn(v)
		}
	}
}
