package cache

import "sync"

// queue is an unbounded FIFO: push never blocks, so neither go-zookeeper's
// callbacks nor the cache's loop ever wait for a slow reader.
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

// pump sends what is pushed to q on out, in order, until stop is closed;
// then it closes out (what was not received is dropped).
func pump[T any](q *queue[T], out chan<- T, stop <-chan struct{}) {
	defer close(out)
	for {
		select {
		case <-stop:
			return
		case <-q.ready:
		}
		for _, v := range q.takeAll() {
			select {
			case out <- v:
			case <-stop:
				return
			}
		}
	}
}
