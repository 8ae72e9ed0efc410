package framework

import (
	"context"
	"sync"

	"github.com/zkcurator/zkcurator/internal/queue"
)

// pendingWatchEvents is MaxPendingWatchEvents, lowered by tests.
var pendingWatchEvents = MaxPendingWatchEvents

// PersistentWatch is a handle on a persistent watch that AddWatch set. Its
// events come on one channel, in the order the server sent them, with the
// resets in their place among them: one ordered stream lets its reader
// select on it beside a ctx and go at its own pace, and go-zookeeper's
// goroutines never wait for it (events queue up behind the channel, at most
// MaxPendingWatchEvents of them before a reset replaces them).
type PersistentWatch struct {
	c      *Client // the view whose namespace events are relative to
	entry  *watchEntry
	queue  *queue.Queue[WatchEvent]
	events chan WatchEvent
	stop   chan struct{} // closed by Close
	pumped chan struct{} // closed when pump has returned
	once   sync.Once
	err    error
}

// Events returns the channel of the watch's events. It is closed by the
// time Close returns (no event is received after it), or once the client
// is closed.
func (w *PersistentWatch) Events() <-chan WatchEvent { return w.events }

// Path returns the watched path, relative to the namespace.
func (w *PersistentWatch) Path() string { return w.c.relPath(w.entry.key.path) }

// Mode returns the watch's mode.
func (w *PersistentWatch) Mode() AddWatchMode { return w.entry.key.mode }

// Close ends the handle: its channel is closed, and when it was the last
// handle on its path and mode, the watch is removed from the server (a
// one-shot watch on the same path stays). ctx bounds Close's wait: a
// removal that has not finished by then goes on in the background (the
// watch goes with its connection in any case). Close is idempotent: later
// calls return the first one's result.
func (w *PersistentWatch) Close(ctx context.Context) error {
	w.once.Do(func() {
		close(w.stop)
		<-w.pumped // a send under way might otherwise still win against stop
		w.err = w.c.core.watches.leave(ctx, w)
		if w.err != nil {
			w.err = wrapErr("remove watch", w.Path(), w.err)
		}
	})
	return w.err
}

// push queues ev for the reader; it never blocks. Past
// MaxPendingWatchEvents the queued events give way to one reset, then ev.
func (w *PersistentWatch) push(ev WatchEvent) {
	w.queue.Edit(func(items []WatchEvent) []WatchEvent {
		if len(items) >= pendingWatchEvents {
			return append(items[:0], WatchEvent{Reset: true}, ev)
		}
		return append(items, ev)
	})
	w.queue.Wake()
}

// pump hands queued events to the channel until Close or the client's.
func (w *PersistentWatch) pump(closing <-chan struct{}) {
	defer close(w.pumped)
	defer close(w.events)
	for {
		select {
		case <-w.stop:
			return
		case <-closing:
			return
		case <-w.queue.Ready():
		}
		for _, ev := range w.queue.TakeAll() {
			select {
			case w.events <- ev:
			case <-w.stop:
				return
			case <-closing:
				return
			}
		}
	}
}
