package cache

import (
	"slices"
	"strings"

	"github.com/zkcurator/zkcurator/internal/queue"
)

// slack is how many events beyond the size of the tree may wait for the
// consumer before the cache stops queueing node events and catches the
// consumer up by differences instead.
const slack = 1024

// outbox holds the events on their way to the consumer: a queue whose node
// events give way to a catch-up when the consumer falls too far behind.
// Node events are pushed with the engine's e.mu held, so that a catch-up
// (which reads the nodes under e.mu) sees each change either in the nodes
// and dropped from the queue, or in neither. Connection and Initialized
// events (push) are never dropped.
type outbox struct {
	*queue.Queue[queued]
	behind bool // node events were dropped: the pump sends the differences; read and written only in Edit
}

func newOutbox() *outbox { return &outbox{Queue: queue.New[queued]()} }

// queued is an event on its way to the consumer: its type and, for a node
// event, the Node the cache held (shared with the engine's entry and then
// with the consumer's view, never changed).
type queued struct {
	t EventType
	n *Node // nil for the connection events and Initialized
}

// pushNode queues a node event unless the consumer is already behind. When
// more than limit events wait, the queued node events are dropped and the
// consumer will be caught up by differences.
func (o *outbox) pushNode(ev queued, limit int) {
	added := false
	o.Edit(func(items []queued) []queued {
		if o.behind {
			return items
		}
		added = true
		items = append(items, ev)
		if len(items) > limit {
			o.behind = true
			items = slices.DeleteFunc(items, func(ev queued) bool { return ev.n != nil })
		}
		return items
	})
	if added {
		o.Wake()
	}
}

// reset drops every event waiting.
func (o *outbox) reset() {
	o.Edit(func([]queued) []queued {
		o.behind = false
		return nil
	})
}

// takeUnlessBehind returns the events waiting, or reports that the consumer
// is behind and leaves them queued.
func (o *outbox) takeUnlessBehind() (items []queued, behind bool) {
	o.Edit(func(waiting []queued) []queued {
		if behind = o.behind; behind {
			return waiting
		}
		items = waiting
		return nil
	})
	return items, behind
}

// takeCaughtUp returns the events waiting and clears behind; the caller
// appends the differences it reads while holding what keeps them in step.
func (o *outbox) takeCaughtUp() []queued {
	var items []queued
	o.Edit(func(waiting []queued) []queued {
		items, o.behind = waiting, false
		return nil
	})
	return items
}

// pump sends the outbox's events on e.events, in order, until e.stop is
// closed; then it closes e.events (what was not received is dropped). It
// keeps the nodes as the consumer knows them (view), to catch it up: the
// Nodes the engine held when it queued them, shared, not copied.
func (e *engine) pump() {
	defer close(e.events)
	view := make(map[string]*Node)
	for {
		select {
		case <-e.stop:
			return
		case <-e.outbox.Ready():
		}
		for batch := e.take(view); len(batch) > 0; batch = e.take(view) {
			for _, q := range batch {
				e.met[q.t].Add(1)
				ev := Event{Type: q.t}
				if q.n != nil {
					ev.Node = *q.n
				}
				if q.t == NodeUpdated {
					if was := view[q.n.Path]; was != nil {
						ev.Old = *was
					}
				}
				select {
				case e.events <- ev:
				case <-e.stop:
					return
				}
				switch q.t {
				case NodeAdded, NodeUpdated:
					view[q.n.Path] = q.n
				case NodeRemoved:
					delete(view, q.n.Path)
				}
				e.viewLen.Store(int64(len(view)))
			}
		}
	}
}

// take returns the events waiting and, when node events were dropped, the
// differences between view and the nodes the cache holds.
func (e *engine) take(view map[string]*Node) []queued {
	if items, behind := e.outbox.takeUnlessBehind(); !behind {
		return items
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return append(e.outbox.takeCaughtUp(), e.differencesLocked(view)...)
}

// differencesLocked returns the events that take a consumer from view to the
// nodes held: removals children first, then additions and updates parents
// first. A node whose czxid changed is removed and added. e.mu is held.
func (e *engine) differencesLocked(view map[string]*Node) []queued {
	var out []queued
	gone := make([]string, 0)
	for p, was := range view {
		if en, ok := e.nodes[p]; !ok || en.node.Stat.Czxid != was.Stat.Czxid {
			gone = append(gone, p)
		}
	}
	slices.SortFunc(gone, func(a, b string) int { return strings.Compare(b, a) })
	for _, p := range gone {
		out = append(out, queued{t: NodeRemoved, n: view[p]})
	}
	held := make([]*Node, 0, len(e.nodes))
	for p, en := range e.nodes {
		if !(e.hideRoot && p == e.root) {
			held = append(held, en.node)
		}
	}
	slices.SortFunc(held, func(a, b *Node) int { return strings.Compare(a.Path, b.Path) })
	for _, n := range held {
		was, known := view[n.Path]
		switch {
		case !known || was.Stat.Czxid != n.Stat.Czxid:
			out = append(out, queued{t: NodeAdded, n: n})
		case was.Stat.Mzxid != n.Stat.Mzxid || was.Stat.Version != n.Stat.Version:
			out = append(out, queued{t: NodeUpdated, n: n})
		}
	}
	return out
}
