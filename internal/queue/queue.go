// Package queue is the unbounded FIFO that zkcurator's event loops share:
// pushing never blocks, so go-zookeeper's callbacks and the client's
// listeners can feed it, and one consumer takes everything queued so far
// when its Ready channel says there may be something.
package queue

import "sync"

// Queue is an unbounded FIFO with a wake-up channel; its zero value is not
// ready for use (see New). It is safe for any number of producers and one
// consumer.
type Queue[T any] struct {
	mu    sync.Mutex
	items []T
	ready chan struct{} // holds a token while items may be waiting
}

// New returns an empty queue.
func New[T any]() *Queue[T] { return &Queue[T]{ready: make(chan struct{}, 1)} }

// Push appends v and wakes the consumer.
func (q *Queue[T]) Push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.Wake()
}

// Edit replaces the queued items by what fn returns, under the queue's lock.
// fn may append, drop or keep state of its own that must change together
// with the items; it must not call the queue. Edit does not wake the
// consumer (a consumer that edits as it takes would wake itself forever):
// call Wake when the edit gave it something to do.
func (q *Queue[T]) Edit(fn func(items []T) []T) {
	q.mu.Lock()
	q.items = fn(q.items)
	q.mu.Unlock()
}

// Ready receives a token when items may be waiting: after it fires, the
// consumer takes everything with TakeAll (which may find nothing).
func (q *Queue[T]) Ready() <-chan struct{} { return q.ready }

// TakeAll removes and returns everything queued, oldest first.
func (q *Queue[T]) TakeAll() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// Len returns how many items are queued.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Wake tells the consumer that items may be waiting: it leaves a token in
// Ready unless one is there already.
func (q *Queue[T]) Wake() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}
