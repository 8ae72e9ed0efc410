package cache

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/queue"
)

// The loop (run) keeps a started cache in line with the server. Below is
// how it follows changes and why it never applies a read older than one it
// applied; what that gives a user is in the package documentation.
//
// How the loop follows changes: it takes the notifications that queued
// since its last step, notes per node which watches fired, and reads those
// nodes again in batches. A batch holds the changed nodes with the same
// number of changed ancestors, so no node of a batch is an ancestor of
// another; its reads go out together and are applied in order of path,
// and the next batch (the nodes below) is read only once the batch before
// is applied, when whether the cache still holds them is known. A node
// whose data watch alone fired, whose child watch is still armed and which
// is still the node held (the same creation zxid), has only its data read
// (one getData, as Curator's TreeCache); any change of its children fires
// that child watch, and a later step lists them.
//
// Why no read older than one applied can overwrite it: a read decides from
// what the cache holds at and below the node it starts from (whether the
// node held is the one read, and which children it holds), and applying
// the read of one node of a batch changes only what is held at and below
// it, and its parent's set of children, a parent not in the batch: so what
// a read decided from is still so when it is applied. Each node is read at
// most once in a batch (no node is below two of its nodes), a batch's reads
// are all applied or dropped before the next batch's are sent, and a step's
// before the next step's; ZooKeeper answers one session's requests in
// order, so a read applied later saw the node as recently as any applied
// before it. A node deleted and created again has a new creation zxid: its
// read drops what was held below it (reporting it removed) and reads its
// children afresh. The root is an ancestor of every other node, so it is
// read alone, first, when it changed.

// retryEvery is how often the loop tries again to bring the cache in line
// after a read failed (the connection was down, say).
const retryEvery = time.Second

// input is what the loop reacts to: a watch notification, a connection
// state, or a persistent watch's reset (changes may have been missed).
type input struct {
	event   zk.Event
	state   framework.ConnectionState
	isState bool
	reset   bool
}

// run applies what arrives in the inbox until the engine stops.
func (e *engine) run() {
	var retry <-chan time.Time
	resync := false
	for {
		select {
		case <-e.stop:
			return
		case <-retry:
		case <-e.inbox.Ready():
		}
		retry = nil
		var err error
		if resync, err = e.step(resync); err != nil {
			if e.ctx.Err() != nil {
				return
			}
			e.cfg.log.Debug("cache out of step; trying again", zap.String("root", e.root), zap.Error(err))
			retry = time.After(retryEvery)
		}
	}
}

// step takes the queued inputs and reads again what they made stale; it
// returns whether the whole tree must be read again on the next step.
// While the connection is down it reads nothing, and keeps the changed
// nodes for the first step after the reconnect.
func (e *engine) step(resync bool) (bool, error) {
	ctx, cancel := context.WithCancel(e.ctx)
	e.interrupt.Store(&cancel) // before taking the inputs: a later suspension ends the reads
	defer func() {
		e.interrupt.Store(nil)
		cancel()
	}()
	dirty := e.deferred
	e.deferred = nil
	if dirty == nil {
		dirty = make(map[string]fired)
	}
	for _, in := range e.inbox.TakeAll() {
		if in.reset {
			resync = true
		} else if in.isState {
			resync = e.onState(in.state) || resync
		} else if e.onEvent(in.event, dirty) {
			resync = true
		}
	}
	if e.down {
		// Read them once the connection is back: a reconnect under one-shot
		// watches reads the whole tree anyway, but a persistent watch's
		// reset may have come before a suspension reported late, and the
		// changes notified since must not be dropped.
		e.deferred = dirty
		return resync, nil
	}
	err := e.apply(ctx, resync, dirty)
	return err != nil, err
}

// onConnection queues a connection state in inbox for the loop and, when
// the connection is suspended or lost, ends the loop's reads under way, so
// that the state is reported at once rather than after a reconnect.
func (e *engine) onConnection(inbox *queue.Queue[input], s framework.ConnectionState) {
	inbox.Push(input{state: s, isState: true})
	if s == framework.Suspended || s == framework.Lost {
		if stop := e.interrupt.Load(); stop != nil {
			(*stop)()
		}
	}
}

// apply reads again the whole tree (resync) or the dirty nodes, in
// batches (see batches): the nodes of one batch are read together and
// applied in order of their paths, and a batch is read only once the one
// before it is applied. A node whose data watch alone fired, and whose
// child watch is still armed, has only its data read again; under a
// recursive watch every dirty node has (see recursive.go).
func (e *engine) apply(ctx context.Context, resync bool, dirty map[string]fired) error {
	if resync {
		return e.refresh(ctx, []top{{path: e.root}}, true)
	}
	for _, batch := range e.batches(dirty) {
		tops := make([]top, 0, len(batch))
		for _, p := range batch {
			if !e.ours(p) {
				continue
			}
			dataOnly := e.watches.recursive() || dirty[p] == firedData && e.watches.childrenWatched(p)
			tops = append(tops, top{path: p, dataOnly: dataOnly})
		}
		if err := e.refresh(ctx, tops, false); err != nil {
			return err
		}
	}
	return nil
}

// ours reports whether the loop reads the changed node p: the root, a node
// held, or, under a recursive watch, a node the selector accepts below a node
// held (its creation); with one-shot watches a node not held is its
// parent's child watch's to report. The selector is called between reads,
// never beside a reader's call.
func (e *engine) ours(p string) bool {
	if p == e.root || e.holds(p) {
		return true
	}
	return e.watches.recursive() && e.holds(parentOf(p)) && e.cfg.follow(p)
}

// batches splits the dirty paths by how many dirty ancestors each has, each
// batch sorted: no path of a batch is an ancestor of another, so applying
// the read of one never changes what is held at or below another (only its
// own subtree, and its parent's set of children, a parent not in the
// batch). A path below a dirty one comes in a later batch, read after
// that ancestor's read was applied, when whether the cache holds it is
// known again.
func (e *engine) batches(dirty map[string]fired) [][]string {
	var out [][]string
	for p := range dirty {
		level := 0
		for q := p; q != e.root && q != "/"; {
			q = parentOf(q)
			if _, ok := dirty[q]; ok {
				level++
			}
		}
		for len(out) <= level {
			out = append(out, nil)
		}
		out[level] = append(out[level], p)
	}
	for _, batch := range out {
		slices.Sort(batch)
	}
	return out
}

// onState reports a connection change and whether the tree must be read
// again. A connection notice that does not follow a suspension (the client's
// first Connected, still queued when the cache started) is no change.
func (e *engine) onState(s framework.ConnectionState) bool {
	switch s {
	case framework.Suspended:
		e.down = true
		e.outbox.Push(queued{t: ConnectionSuspended})
	case framework.Lost:
		e.down = true
		e.watches.reset() // the session's watches are gone
		e.outbox.Push(queued{t: ConnectionLost})
	case framework.Reconnected, framework.Connected:
		if !e.down {
			return false
		}
		e.down = false
		e.outbox.Push(queued{t: ConnectionReconnected})
		// One-shot watches may have missed changes: read the tree again. A
		// persistent watch is set again on the new connection, and its
		// reset, in its place among the watch's events, asks for that read.
		return !e.watches.recursive()
	}
	return false
}

// fired is which of a node's watches fired during one step.
type fired uint8

const (
	firedData  fired = 1 << iota // the data watch: the data changed
	firedOther                   // children changed, or the node was created or deleted
)

// onEvent notes which watch fired and marks the node to read again. It
// reports whether every watch was dropped (the session ended), so that the
// whole tree must be read again.
func (e *engine) onEvent(ev zk.Event, dirty map[string]fired) bool {
	if ev.Type == zk.EventNotWatching {
		e.watches.reset()
		return true
	}
	if !e.within(ev.Path) {
		return false
	}
	e.watches.notified(ev)
	if ev.Type == zk.EventNodeDataChanged {
		dirty[ev.Path] |= firedData
	} else {
		dirty[ev.Path] |= firedOther
	}
	return false
}

// within reports whether p is the root or below it, down to maxDepth.
func (e *engine) within(p string) bool {
	d := e.depth(p)
	return d >= 0 && (e.cfg.maxDepth < 0 || d <= e.cfg.maxDepth)
}

// depth is p's level below the root (0 for the root), or -1 when p is not
// in the root's subtree.
func (e *engine) depth(p string) int {
	switch {
	case p == e.root:
		return 0
	case e.root == "/" && strings.HasPrefix(p, "/"):
		return strings.Count(p, "/")
	case strings.HasPrefix(p, e.root+"/"):
		return strings.Count(p[len(e.root):], "/")
	}
	return -1
}
