package framework

import "github.com/go-zookeeper/zk"

// ListenNodeEvents registers fn to be told of every watch notification the
// client's connections receive, whichever call set the watch: a node
// created, deleted, its data or its children changed, and EventNotWatching
// for each watch go-zookeeper drops when a session ends. Paths are relative
// to this view's namespace, and notifications for paths outside it are not
// delivered. Calls happen in the order the server sent the notifications, on
// one goroutine of the client (never on go-zookeeper's), none dropped however
// slow fn is. A recipe that watches many nodes can follow them all through
// one callback, rather than one goroutine per watch channel. The returned
// stop is idempotent; once it returns no new call to fn starts.
func (c *Client) ListenNodeEvents(fn func(zk.Event)) (stop func()) {
	if fn == nil {
		return func() {}
	}
	return c.core.nodeListeners.Add(func(ev zk.Event) {
		if rel, ok := c.inNamespace(ev.Path); ok {
			ev.Path = rel
			fn(ev)
		}
	})
}

// dispatchNodeEvents delivers queued watch notifications until stop is closed.
func (k *core) dispatchNodeEvents(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-k.nodeEvents.Ready():
			for _, ev := range k.nodeEvents.TakeAll() {
				select {
				case <-stop:
					return
				default:
				}
				k.nodeListeners.Deliver(ev)
			}
		}
	}
}

// relWatch returns a watch channel whose event carries its path relative to the
// view's namespace, as every path the client hands out. go-zookeeper sends one event
// on a watch channel and closes it (at the latest when its connection closes, before
// Close returns), so the forwarding goroutine ends with it.
func (c *Client) relWatch(ch <-chan zk.Event) <-chan zk.Event {
	if c.ns == "" && c.core.cfg.chroot == "" || ch == nil {
		return ch
	}
	out := make(chan zk.Event, 1)
	forward := func() {
		defer close(out)
		if ev, ok := <-ch; ok {
			ev.Path = c.relPath(ev.Path)
			out <- ev
		}
	}
	if !c.core.spawn(forward) {
		go forward() // Close is already waiting; its closing connection ends ch
	}
	return out
}
