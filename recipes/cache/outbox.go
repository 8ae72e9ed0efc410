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
// event, the Node the cache held (shared with the engine's nodes, never
// changed).
type queued struct {
	t   EventType
	n   *Node // nil for the connection events and Initialized
	was *Node // for an update, the node as last reported: its Old
}

// pushNode queues a node event unless the consumer is already behind. When
// more than limit events wait, the queued node events are dropped and
// returned (the consumer will be caught up by differences); otherwise it
// returns nil.
func (o *outbox) pushNode(ev queued, limit int) (dropped []queued) {
	added := false
	o.Edit(func(items []queued) []queued {
		if o.behind {
			return items
		}
		added = true
		items = append(items, ev)
		if len(items) > limit {
			o.behind = true
			kept := items[:0:0]
			for _, q := range items {
				if q.n != nil {
					dropped = append(dropped, q)
				} else {
					kept = append(kept, q)
				}
			}
			items = kept
		}
		return items
	})
	if added {
		o.Wake()
	}
	return dropped
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
// closed; then it closes e.events (what was not received is dropped).
func (e *engine) pump() {
	defer close(e.events)
	told := int64(0) // the nodes the consumer has been told of
	for {
		select {
		case <-e.stop:
			return
		case <-e.outbox.Ready():
		}
		for batch := e.take(); len(batch) > 0; batch = e.take() {
			for _, q := range batch {
				e.met[q.t].Add(1)
				ev := Event{Type: q.t}
				if q.n != nil {
					ev.Node = *q.n
				}
				if q.was != nil {
					ev.Old = *q.was
				}
				select {
				case e.events <- ev:
				case <-e.stop:
					return
				}
				switch q.t {
				case NodeAdded:
					told++
				case NodeRemoved:
					told--
				}
				e.viewLen.Store(told)
			}
		}
	}
}

// take returns the events waiting and, when node events were dropped, the
// differences between what the consumer was told and the nodes the cache
// holds.
func (e *engine) take() []queued {
	if items, behind := e.outbox.takeUnlessBehind(); !behind {
		return items
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	told := e.told
	e.told = nil
	clear(e.unreported) // the differences bring the consumer to the nodes held
	return append(e.outbox.takeCaughtUp(), e.differencesLocked(told)...)
}

// differencesLocked returns the events that take a consumer from told to the
// nodes held: removals children first, then additions and updates parents
// first. A node whose czxid changed is removed and added. e.mu is held.
func (e *engine) differencesLocked(told map[string]*Node) []queued {
	var out []queued
	gone := make([]string, 0)
	for p, was := range told {
		if n, ok := e.nodes[p]; !ok || n.Stat.Czxid != was.Stat.Czxid {
			gone = append(gone, p)
		}
	}
	slices.SortFunc(gone, func(a, b string) int { return strings.Compare(b, a) })
	for _, p := range gone {
		out = append(out, queued{t: NodeRemoved, n: told[p]})
	}
	held := e.heldLocked()
	sortByPath(held)
	for _, n := range held {
		was, known := told[n.Path]
		switch {
		case !known || was.Stat.Czxid != n.Stat.Czxid:
			out = append(out, queued{t: NodeAdded, n: n})
		case was.Stat.Mzxid != n.Stat.Mzxid || was.Stat.Version != n.Stat.Version:
			out = append(out, queued{t: NodeUpdated, n: n, was: was})
		}
	}
	return out
}
