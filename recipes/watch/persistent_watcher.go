package watch

import (
	"context"
	"fmt"
	"sync"

	"github.com/zkcurator/zkcurator/framework"
)

// PersistentWatcher keeps a persistent watch on a path and calls its
// listeners with the watch's events and resets (Curator's PersistentWatcher).
type PersistentWatcher struct {
	client *framework.Client
	path   string
	mode   framework.AddWatchMode

	events listeners[framework.WatchEvent]
	resets listeners[struct{}]

	mu        sync.Mutex
	started   bool
	closed    bool
	stopStart context.CancelFunc // ends the Start under way, if any
	starting  chan struct{}      // closed when the Start under way has ended
	handle    *framework.PersistentWatch
	done      chan struct{} // closed when the delivery goroutine ends
}

// NewPersistentWatcher returns a watcher of path (relative to the client's
// namespace), and of all its descendants when recursive. It does no I/O;
// call Start.
func NewPersistentWatcher(c *framework.Client, path string, recursive bool) (*PersistentWatcher, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: client is nil", ErrInvalidArgument)
	}
	if err := framework.ValidatePath(path); err != nil {
		return nil, fmt.Errorf("%w: path %q: %w", ErrInvalidArgument, path, err)
	}
	mode := framework.WatchPersistent
	if recursive {
		mode = framework.WatchPersistentRecursive
	}
	return &PersistentWatcher{client: c, path: path, mode: mode}, nil
}

// Listen adds fn as a listener of the watch's events; stop removes it (no
// call of fn starts once stop has returned).
func (w *PersistentWatcher) Listen(fn func(framework.WatchEvent)) (stop func()) {
	return w.events.add(fn)
}

// ListenReset adds fn as a listener of resets: the watch was set (again) and
// changes before it may have been missed. stop removes it.
func (w *PersistentWatcher) ListenReset(fn func()) (stop func()) {
	return w.resets.add(func(struct{}) { fn() })
}

// Start sets the watch, calls the reset listeners once, and delivers events
// until Close. ctx bounds the wait for the server, retries included. A
// Start under way refuses another with ErrAlreadyStarted; one that fails
// may be tried again; Close ends one under way, which then returns
// ErrClosed.
func (w *PersistentWatcher) Start(ctx context.Context) error {
	w.mu.Lock()
	switch {
	case w.closed:
		w.mu.Unlock()
		return ErrClosed
	case w.started:
		w.mu.Unlock()
		return ErrAlreadyStarted
	}
	w.started = true
	starting := make(chan struct{})
	defer close(starting)
	addCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.stopStart, w.starting = cancel, starting
	w.mu.Unlock()

	h, err := w.client.AddWatch(addCtx, w.path, w.mode)
	w.mu.Lock()
	w.stopStart, w.starting = nil, nil
	closed := w.closed
	switch {
	case closed:
	case err != nil:
		w.started = false
	default:
		w.handle, w.done = h, make(chan struct{})
		go w.deliver(h, w.done)
	}
	w.mu.Unlock()
	switch {
	case closed:
		if err == nil {
			h.Close(ctx) // Close waits for it, within its own ctx
		}
		return ErrClosed
	case err != nil:
		return fmt.Errorf("watch: start %q: %w", w.path, err)
	}
	return nil
}

// deliver calls the listeners with h's events, a reset first, until h's
// channel closes.
func (w *PersistentWatcher) deliver(h *framework.PersistentWatch, done chan<- struct{}) {
	defer close(done)
	w.resets.call(struct{}{})
	for ev := range h.Events() {
		if ev.Reset {
			w.resets.call(struct{}{})
		} else {
			w.events.call(ev)
		}
	}
}

// Close removes the watch from the server (bounded by ctx) and stops the
// listeners: none is called after Close returns, so a listener must not call
// it (it would wait for itself). A Start under way ends, and Close waits for
// it within ctx. It is idempotent.
func (w *PersistentWatcher) Close(ctx context.Context) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	if w.stopStart != nil {
		w.stopStart()
	}
	h, done, starting := w.handle, w.done, w.starting
	w.mu.Unlock()
	if starting != nil { // no handle yet, and no listener called
		select {
		case <-starting:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("watch: close %q: %w", w.path, ctx.Err())
		}
	}
	if h == nil {
		return nil
	}
	err := h.Close(ctx)
	<-done // the handle's channel is closed: the delivery ends with the call under way
	if err != nil {
		return fmt.Errorf("watch: close %q: %w", w.path, err)
	}
	return nil
}
