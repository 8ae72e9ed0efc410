package framework

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
	"github.com/zkcurator/zkcurator/internal/queue"
)

// opAddWatch is ZooKeeper's addWatch opcode; tests send one the server does
// not know, to see its answer to an old client's request.
var opAddWatch = gozk.OpAddWatch

// watchKey names one watch on the server: handles on the same path and
// mode share it.
type watchKey struct {
	path string // on the server, namespace included
	mode AddWatchMode
}

// watchEntry is one watch on the server and the handles that share it.
type watchEntry struct {
	key watchKey
	// sem admits one round trip (addWatch or removeWatches) at a time, so
	// that what on says is what the server holds.
	sem chan struct{}

	// Guarded by watchRegistry.mu.
	handles map[*PersistentWatch]struct{}
	on      *gozk.Link // the connection on which the server holds the watch
	events  uint64     // notifications handed to the handles so far
}

// watchRegistry holds the client's persistent watches: it sets each again on
// every new connection of the client (gozk's Exchange, before go-zookeeper's
// first request on it) and hands each notification to the handles it
// concerns (gozk's Notify, before go-zookeeper reads it).
type watchRegistry struct {
	k *core

	mu      sync.Mutex
	gate    *gozk.Gate // the current connection generation's
	entries map[watchKey]*watchEntry

	// before39 is the last connection whose server could not read 3.9's
	// persistent watcher types (watch_remove.go).
	before39 atomic.Pointer[gozk.Link]
}

func newWatchRegistry(k *core) *watchRegistry {
	return &watchRegistry{k: k, entries: make(map[watchKey]*watchEntry)}
}

// newGate returns the Gate of a new connection generation, whose
// connections authenticate by SASL (WithSASL), then set the watches again,
// and report notifications to r.
func (r *watchRegistry) newGate() *gozk.Gate {
	var g *gozk.Gate
	g = gozk.NewGateHooks(gozk.Hooks{
		Exchange: func(ctx context.Context, l *gozk.Link) error {
			if err := r.k.authenticateSASL(ctx, g, l); err != nil {
				return err
			}
			return r.restore(ctx, g, l)
		},
		Notify:  func(n gozk.Notification) { r.notify(g, n) },
		OneShot: func(b *gozk.Behind, path string) { r.oneShotSet(g, b, path) },
	})
	r.mu.Lock()
	r.gate = g
	r.mu.Unlock()
	return g
}

// join makes a handle on key for the view c, its events delivered from now.
func (r *watchRegistry) join(c *Client, key watchKey) (*PersistentWatch, error) {
	w := &PersistentWatch{c: c, queue: queue.New[WatchEvent](),
		events: make(chan WatchEvent), stop: make(chan struct{}), pumped: make(chan struct{})}
	select {
	case <-r.k.closing: // a closed client's entries may stand: ErrClosed comes first
		return nil, ErrClosed
	default:
	}
	r.mu.Lock()
	if _, clash := r.entries[watchKey{key.path, otherMode(key.mode)}]; clash {
		r.mu.Unlock()
		return nil, ErrWatchModeConflict
	}
	e := r.entries[key]
	if e == nil {
		e = &watchEntry{key: key, sem: make(chan struct{}, 1), handles: make(map[*PersistentWatch]struct{})}
		r.entries[key] = e
	}
	e.handles[w] = struct{}{}
	w.entry = e
	r.mu.Unlock()
	if !r.k.spawn(func() { w.pump(r.k.closing) }) {
		close(w.events)
		w.once.Do(func() {})
		r.mu.Lock()
		r.dropLocked(w)
		r.mu.Unlock()
		return nil, ErrClosed
	}
	return w, nil
}

// otherMode is the persistent watch mode that is not m.
func otherMode(m AddWatchMode) AddWatchMode {
	if m == WatchPersistent {
		return WatchPersistentRecursive
	}
	return WatchPersistent
}

// dropLocked forgets handle w; it reports whether w was its entry's last
// handle. The entry itself is forgotten under its semaphore (leave), so that
// an addWatch still in flight is followed by its removal, never by a second
// entry's addWatch that the removal would undo.
func (r *watchRegistry) dropLocked(w *PersistentWatch) bool {
	e := w.entry
	delete(e.handles, w)
	return len(e.handles) == 0
}

// ensure sets e's watch on the current connection unless the server holds
// it there already.
func (r *watchRegistry) ensure(ctx context.Context, e *watchEntry) error {
	r.mu.Lock()
	g := r.gate
	r.mu.Unlock()
	l, err := g.Link()
	if err != nil {
		return err
	}
	// Not before the connection authenticated: a server that requires SASL
	// closes the session of a request that comes first.
	if err := l.Ready(ctx); err != nil {
		return err
	}
	return r.add(ctx, e, l, false)
}

// add sends addWatch for e on l, unless the server holds it there already.
// The reply's callback records it and, with reset, queues a reset for every
// handle: on the goroutine that reads the connection, before the
// notifications behind the reply, so that a reset comes before the events
// of the watch it announces.
func (r *watchRegistry) add(ctx context.Context, e *watchEntry, l *gozk.Link, reset bool) error {
	select {
	case e.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.mu.Lock()
	held, wanted := e.on == l, len(e.handles) > 0
	if held && reset { // set on l by AddWatch meanwhile: the handles missed what came before
		for h := range e.handles {
			h.push(WatchEvent{Reset: true})
		}
	}
	r.mu.Unlock()
	if held || !wanted {
		<-e.sem
		return nil
	}
	done := make(chan error, 1)
	// The semaphore is released by the reply, not by ctx: until the reply,
	// what the server holds is unknown.
	l.Send(opAddWatch, gozk.PathRequest(e.key.path, addWatchMode(e.key.mode)), func(_ gozk.Reply, err error) {
		r.mu.Lock()
		if err == nil {
			e.on = l
			if reset {
				for h := range e.handles {
					h.push(WatchEvent{Reset: true})
				}
			}
		}
		r.mu.Unlock()
		<-e.sem
		done <- err
	})
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// restore sets every watch again on l, a new connection of gate g, before
// go-zookeeper's first request on it; each handle gets a reset. A watch the
// server refuses is logged; an error ends the connection, and the next one
// tries again.
func (r *watchRegistry) restore(ctx context.Context, g *gozk.Gate, l *gozk.Link) error {
	r.mu.Lock()
	if g != r.gate {
		r.mu.Unlock()
		return nil
	}
	var entries []*watchEntry
	for _, e := range r.entries {
		if len(e.handles) > 0 {
			entries = append(entries, e)
		}
	}
	r.mu.Unlock()
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = r.add(ctx, e, l, true)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		switch {
		case err == nil:
		case ctx.Err() != nil || errors.Is(err, gozk.ErrLinkClosed):
			return err
		default:
			r.k.log.Error("cannot set a persistent watch again on a new connection",
				zap.String("path", entries[i].key.path), zap.Stringer("mode", entries[i].key.mode), zap.Error(err))
		}
	}
	return nil
}

// notify hands a notification of gate g to the handles whose watch it
// concerns. It runs on the goroutine that reads the connection: it only
// queues.
func (r *watchRegistry) notify(g *gozk.Gate, n gozk.Notification) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if g != r.gate {
		return
	}
	for key, e := range r.entries {
		if !key.concerns(n) {
			continue
		}
		e.events++
		for h := range e.handles {
			h.push(WatchEvent{Type: n.Type, Path: h.c.relPath(n.Path)})
		}
	}
}

// concerns reports whether a watch of key receives n: a persistent watch
// the events of its node, a recursive one the node's and its descendants'
// except children changes, which ZooKeeper sends only to one-shot child
// watches there.
func (key watchKey) concerns(n gozk.Notification) bool {
	if key.mode == WatchPersistent {
		return n.Path == key.path
	}
	if n.Type == eventNodeChildrenChanged {
		return false
	}
	return n.Path == key.path || key.path == "/" || strings.HasPrefix(n.Path, key.path+"/")
}

// leave ends handle w; when it was the last on its path and mode, the watch
// is removed from the server, unless a new handle joined meanwhile. ctx
// bounds the wait, not the removal: a round trip of the entry under way
// (an addWatch on a new connection, say) decides what the server holds
// once answered, so the removal waits for it in the background and then
// forgets the entry.
func (r *watchRegistry) leave(ctx context.Context, w *PersistentWatch) error {
	r.mu.Lock()
	last := r.dropLocked(w)
	r.mu.Unlock()
	if !last {
		return nil
	}
	done := make(chan error, 1)
	if !r.k.spawn(func() { done <- r.removeLast(w.entry) }) {
		return nil // Close closes the connection, and its watches go with it
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// removeLast removes e's watch from the server once e's round trip under
// way is answered (or its connection ended), unless a handle joined
// meanwhile, and forgets e. The semaphore is always released: by the reply,
// or when the connection ends, which the client's Close brings about.
func (r *watchRegistry) removeLast(e *watchEntry) error {
	e.sem <- struct{}{}
	r.mu.Lock()
	on := e.on
	if len(e.handles) > 0 || on == nil {
		if len(e.handles) == 0 && r.entries[e.key] == e {
			delete(r.entries, e.key)
		}
		r.mu.Unlock()
		<-e.sem
		return nil
	}
	r.mu.Unlock()
	return r.remove(e, on) // it holds the semaphore until the server answered
}

// remove removes e's watch from the server on l, then forgets e unless a
// handle joined meanwhile; it releases e.sem. A connection that ended took
// its watches with it.
func (r *watchRegistry) remove(e *watchEntry, l *gozk.Link) error {
	defer func() { <-e.sem }()
	err := r.removeWatch(l, e.key) // bounded by the reply or the connection's end
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil || errors.Is(err, gozk.ErrLinkClosed) || errors.Is(err, gozk.ErrNoWatcher) {
		err = nil
		if e.on == l {
			e.on = nil
		}
	}
	if len(e.handles) == 0 && e.on == nil && r.entries[e.key] == e {
		delete(r.entries, e.key)
	}
	return err
}
