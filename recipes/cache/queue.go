package cache

import "sync"

// queue is an unbounded FIFO: push never blocks, so the client's callbacks
// never wait for the cache's loop, nor the loop for the consumer. The
// inbox's inputs are bounded by the watches armed (each fires once) and the
// connection changes; the outbox bounds its own (outbox.go).
type queue[T any] struct {
	mu    sync.Mutex
	items []T
	ready chan struct{} // holds a token while items may be waiting
}

func newQueue[T any]() *queue[T] { return &queue[T]{ready: make(chan struct{}, 1)} }

func (q *queue[T]) push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.signal()
}

// signal leaves a token in ready unless one is there already.
func (q *queue[T]) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// takeAll removes and returns everything queued, oldest first.
func (q *queue[T]) takeAll() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}
