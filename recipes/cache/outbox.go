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
	*queue.Queue[Event]
	behind bool // node events were dropped: the pump sends the differences; read and written only in Edit
}

func newOutbox() *outbox { return &outbox{Queue: queue.New[Event]()} }

// pushNode queues a node event unless the consumer is already behind. When
// more than limit events wait, the queued node events are dropped and the
// consumer will be caught up by differences.
func (o *outbox) pushNode(ev Event, limit int) {
	queued := false
	o.Edit(func(items []Event) []Event {
		if o.behind {
			return items
		}
		queued = true
		items = append(items, ev)
		if len(items) > limit {
			o.behind = true
			items = slices.DeleteFunc(items, func(ev Event) bool { return ev.Node.Path != "" })
		}
		return items
	})
	if queued {
		o.Wake()
	}
}

// reset drops every event waiting.
func (o *outbox) reset() {
	o.Edit(func([]Event) []Event {
		o.behind = false
		return nil
	})
}

// takeUnlessBehind returns the events waiting, or reports that the consumer
// is behind and leaves them queued.
func (o *outbox) takeUnlessBehind() (items []Event, behind bool) {
	o.Edit(func(queued []Event) []Event {
		if behind = o.behind; behind {
			return queued
		}
		items = queued
		return nil
	})
	return items, behind
}

// takeCaughtUp returns the events waiting and clears behind; the caller
// appends the differences it reads while holding what keeps them in step.
func (o *outbox) takeCaughtUp() []Event {
	var items []Event
	o.Edit(func(queued []Event) []Event {
		items, o.behind = queued, false
		return nil
	})
	return items
}

// pump sends the outbox's events on e.events, in order, until e.stop is
// closed; then it closes e.events (what was not received is dropped). It
// keeps the nodes as the consumer knows them (view), to catch it up.
func (e *engine) pump() {
	defer close(e.events)
	view := make(map[string]Node)
	for {
		select {
		case <-e.stop:
			return
		case <-e.outbox.Ready():
		}
		for batch := e.take(view); len(batch) > 0; batch = e.take(view) {
			for _, ev := range batch {
				e.met[ev.Type].Add(1)
				if ev.Type == NodeUpdated {
					ev.Old = view[ev.Node.Path]
				}
				select {
				case e.events <- ev:
				case <-e.stop:
					return
				}
				switch ev.Type {
				case NodeAdded, NodeUpdated:
					view[ev.Node.Path] = ev.Node
				case NodeRemoved:
					delete(view, ev.Node.Path)
				}
				e.viewLen.Store(int64(len(view)))
			}
		}
	}
}

// take returns the events waiting and, when node events were dropped, the
// differences between view and the nodes the cache holds.
func (e *engine) take(view map[string]Node) []Event {
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
func (e *engine) differencesLocked(view map[string]Node) []Event {
	var out []Event
	gone := make([]string, 0)
	for p, was := range view {
		if en, ok := e.nodes[p]; !ok || en.node.Stat.Czxid != was.Stat.Czxid {
			gone = append(gone, p)
		}
	}
	slices.SortFunc(gone, func(a, b string) int { return strings.Compare(b, a) })
	for _, p := range gone {
		out = append(out, Event{Type: NodeRemoved, Node: view[p]})
	}
	held := e.heldLocked()
	sortByPath(held)
	for _, n := range held {
		was, known := view[n.Path]
		switch {
		case !known || was.Stat.Czxid != n.Stat.Czxid:
			out = append(out, Event{Type: NodeAdded, Node: n})
		case was.Stat.Mzxid != n.Stat.Mzxid || was.Stat.Version != n.Stat.Version:
			out = append(out, Event{Type: NodeUpdated, Node: n})
		}
	}
	return out
}
