package cache

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// top is a node a refresh reads again, with its subtree as needed.
// dataOnly: only its data, if the node read is the one held (the same
// czxid); its children held stay as they are, its child watch reporting
// their changes.
type top struct {
	path     string
	dataOnly bool
}

// refresh reads the tops (and, with deep, every node held below them) and
// brings the cache in line with what it read, reporting the differences.
// No top may be an ancestor of another (see batches). It arms the watches
// the nodes need through the engine's transport. The reads run ahead,
// several at once (fetch); what they found is applied here, top after top,
// each in the order of a depth-first walk by name, so that the events are
// those of reading one node after the other.
func (e *engine) refresh(ctx context.Context, tops []top, deep bool) error {
	for {
		f, reads := e.fetch(ctx, tops, deep)
		var err error
		for _, r := range reads {
			if err = e.applyRead(f, r); err != nil {
				break
			}
		}
		f.stop()
		if !errors.Is(err, errRootCreated) {
			return err
		}
	}
}

// errRootCreated says that the absent root was created meanwhile: the
// refresh reads it again.
var errRootCreated = errors.New("root created")

// applyRead waits for r and the reads queued behind it, and applies them:
// r's node is held before its children are.
func (e *engine) applyRead(f *fetcher, r *read) error {
	if err := f.await(r); err != nil {
		return err
	}
	p := r.path
	if r.absent {
		e.remove(p)
		if p == e.root {
			exists, err := e.watches.awaitCreation(f.ctx, p)
			if err != nil {
				return err
			}
			if exists {
				return errRootCreated
			}
		}
		return nil
	}
	e.hold(p, r.data, r.stat)
	if r.vanished {
		e.remove(p) // deleted since its data was read
		return nil
	}
	if !r.listed {
		return nil
	}
	for name := range e.childrenOf(p) {
		if !slices.Contains(r.wanted, name) {
			e.remove(framework.JoinPath(p, name))
		}
	}
	for _, kid := range r.kids {
		if err := e.applyRead(f, kid); err != nil {
			return err
		}
	}
	return nil
}

// hold records p as read, reporting it added (also when it was deleted and
// created again since: a new czxid) or updated (a new data version).
func (e *engine) hold(p string, data []byte, stat *zk.Stat) {
	if !e.cfg.data {
		data = nil
	}
	e.mu.RLock()
	was, held := e.nodes[p]
	e.mu.RUnlock()
	if held && was.Stat.Czxid != stat.Czxid {
		e.remove(p)
		held = false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !held {
		n := &Node{Path: p, Data: data, Stat: *stat}
		e.nodes[p] = n
		e.linkLocked(p, true)
		e.reportLocked(NodeAdded, n, nil)
		return
	}
	if was.Stat == *stat {
		return // nothing new: the Node held stays
	}
	n := &Node{Path: was.Path, Data: data, Stat: *stat}
	e.nodes[p] = n
	if was.Stat.Mzxid != stat.Mzxid || was.Stat.Version != stat.Version {
		e.reportLocked(NodeUpdated, n, was)
	} else if _, ok := e.unreported[p]; !ok {
		e.unreported[p] = was // the node as last reported, for the next Old
	}
}

// remove drops p and everything held below it, reporting each node removed,
// children before their parent.
func (e *engine) remove(p string) {
	for name := range e.childrenOf(p) {
		e.remove(framework.JoinPath(p, name))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if old, ok := e.nodes[p]; ok {
		delete(e.nodes, p)
		e.linkLocked(p, false)
		e.reportLocked(NodeRemoved, old, nil)
	}
}

// linkLocked adds p to (or, without add, drops it from) the names of the
// children its parent holds; a parent left without children holds no set.
// e.mu is held.
func (e *engine) linkLocked(p string, add bool) {
	if p == e.root {
		return
	}
	parent := parentOf(p)
	if _, ok := e.nodes[parent]; !ok {
		return
	}
	name := lastElem(p)
	if add {
		if e.kids[parent] == nil {
			e.kids[parent] = make(map[string]struct{}, 1)
		}
		e.kids[parent][name] = struct{}{}
		return
	}
	delete(e.kids[parent], name)
	if len(e.kids[parent]) == 0 {
		delete(e.kids, parent)
	}
}

// reportLocked queues a node event for the consumer, in the same step as
// the change of the nodes it reports (e.mu is held): a catch-up of a
// consumer that fell behind sees both or neither. was is, for an update,
// the node held before it. When the queue overflows, it records what the
// consumer will have been told (e.told) for the catch-up.
func (e *engine) reportLocked(t EventType, n, was *Node) {
	if told, ok := e.unreported[n.Path]; ok {
		was = told
		delete(e.unreported, n.Path)
	}
	if e.hideRoot && n.Path == e.root {
		return
	}
	limit := math.MaxInt // a load's events all come before Initialized
	if e.loaded.Load() {
		limit = slack + len(e.nodes) + int(e.viewLen.Load())
	}
	if dropped := e.outbox.pushNode(queued{t: t, n: n, was: was}, limit); dropped != nil {
		e.told = e.toldLocked(dropped)
	}
}

// toldLocked returns the nodes the consumer will have been told of once it
// received the events taken from the queue: the nodes held as last
// reported, with the dropped events (the rest of the queue, in order)
// undone. e.mu is held.
func (e *engine) toldLocked(dropped []queued) map[string]*Node {
	told := make(map[string]*Node, len(e.nodes))
	for _, n := range e.heldLocked() {
		told[n.Path] = n
	}
	for p, n := range e.unreported {
		if _, ok := told[p]; ok {
			told[p] = n
		}
	}
	for i := len(dropped) - 1; i >= 0; i-- {
		switch q := dropped[i]; q.t {
		case NodeAdded:
			delete(told, q.n.Path)
		case NodeUpdated:
			told[q.n.Path] = q.was
		case NodeRemoved:
			told[q.n.Path] = q.n
		}
	}
	return told
}

// childrenOf returns a copy of the names held below p.
func (e *engine) childrenOf(p string) map[string]struct{} {
	e.mu.RLock()
	defer e.mu.RUnlock()
	names := e.kids[p]
	if len(names) == 0 {
		return nil
	}
	out := make(map[string]struct{}, len(names))
	for name := range names {
		out[name] = struct{}{}
	}
	return out
}

// parentOf returns the path of p's parent ("/" for a child of the root
// node, and for "/" itself).
func parentOf(p string) string {
	if i := strings.LastIndex(p, "/"); i > 0 {
		return p[:i]
	}
	return "/"
}

// holds reports whether p is in the cache.
func (e *engine) holds(p string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	_, ok := e.nodes[p]
	return ok
}

// current returns the node at p as held.
func (e *engine) current(p string) (Node, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	n, ok := e.nodes[p]
	if !ok || (e.hideRoot && p == e.root) {
		return Node{}, false
	}
	return *n, true
}

// snapshot returns every node held (but a hidden root), sorted by path.
func (e *engine) snapshot() []Node {
	e.mu.RLock()
	held := e.heldLocked()
	e.mu.RUnlock()
	sortByPath(held) // the Nodes held never change: no lock needed
	out := make([]Node, len(held))
	for i, n := range held {
		out[i] = *n
	}
	return out
}

// heldLocked returns every node held (but a hidden root), in no order;
// e.mu is held.
func (e *engine) heldLocked() []*Node {
	out := make([]*Node, 0, len(e.nodes))
	for p, n := range e.nodes {
		if !(e.hideRoot && p == e.root) {
			out = append(out, n)
		}
	}
	return out
}

func sortByPath(nodes []*Node) {
	slices.SortFunc(nodes, func(a, b *Node) int { return strings.Compare(a.Path, b.Path) })
}

// childNames returns the names held below p, sorted.
func (e *engine) childNames(p string) []string {
	names := make([]string, 0)
	for name := range e.childrenOf(p) {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func lastElem(p string) string { return p[strings.LastIndex(p, "/")+1:] }
