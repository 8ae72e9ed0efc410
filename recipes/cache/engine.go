package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// retryEvery is how often the loop tries again to bring the cache in line
// after a read failed (the connection was down, say).
const retryEvery = time.Second

// entry is a node the cache holds.
type entry struct {
	node     Node
	children map[string]struct{} // names of the children held
}

// watchKind is which of a node's watches is armed.
type watchKind int

const (
	dataWatch  watchKind = iota // GetDataW: data changes and deletion
	childWatch                  // ChildrenW: children added or removed
	existWatch                  // ExistsW on the absent root: its creation
)

type watchKey struct {
	path string
	kind watchKind
}

// input is what the loop reacts to: a watch notification or a connection
// state.
type input struct {
	event   zk.Event
	state   framework.ConnectionState
	isState bool
}

// engine is what the three caches share: the nodes under a root, down to
// maxDepth, kept in line with the server by one goroutine (run) fed by the
// client's watch notifications and connection states.
type engine struct {
	c        *framework.Client
	root     string
	cfg      config
	hideRoot bool // the root's own changes are not reported (PathChildrenCache)

	mu    sync.RWMutex
	nodes map[string]*entry // written only by the goroutine that owns the engine

	armed  map[watchKey]bool // owned by that goroutine too
	inbox  *queue[input]
	outbox *queue[Event]
	events chan Event

	life      sync.Mutex
	started   bool
	closed    bool
	stopInput []func()
	stop      chan struct{}   // closed by close: the pump ends
	ctx       context.Context // cancelled by close: the loop and its reads end
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

func newEngine(c *framework.Client, root string, cfg config, hideRoot bool) (*engine, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil client", ErrInvalidArgument)
	}
	if err := framework.ValidatePath(root); err != nil {
		return nil, fmt.Errorf("%w: path %q: %w", ErrInvalidArgument, root, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &engine{
		c: c, root: root, cfg: cfg, hideRoot: hideRoot, ctx: ctx, cancel: cancel,
		nodes:  make(map[string]*entry),
		armed:  make(map[watchKey]bool),
		inbox:  newQueue[input](),
		outbox: newQueue[Event](),
		events: make(chan Event),
		stop:   make(chan struct{}),
	}, nil
}

// start loads the tree (reporting every node as added, then Initialized)
// and then follows it in the background. A failed load leaves the engine
// unstarted.
func (e *engine) start(ctx context.Context) error {
	e.life.Lock()
	defer e.life.Unlock()
	switch {
	case e.closed:
		return fmt.Errorf("%w: %s", ErrClosed, e.root)
	case e.started:
		return fmt.Errorf("%w: %s", ErrAlreadyStarted, e.root)
	}
	stopEvents := e.c.ListenNodeEvents(func(ev zk.Event) { e.inbox.push(input{event: ev}) })
	stopStates := e.c.Listen(func(s framework.ConnectionState) { e.inbox.push(input{state: s, isState: true}) })
	if err := e.refresh(ctx, e.root, true); err != nil {
		stopEvents()
		stopStates()
		return fmt.Errorf("cache: load %s: %w", e.root, err)
	}
	e.started = true
	e.stopInput = []func(){stopEvents, stopStates}
	e.outbox.push(Event{Type: Initialized})
	e.wg.Add(2)
	go func() { defer e.wg.Done(); pump(e.outbox, e.events, e.stop) }()
	go func() { defer e.wg.Done(); e.run() }()
	return nil
}

// close stops following the tree and closes the events channel.
func (e *engine) close() error {
	e.life.Lock()
	defer e.life.Unlock()
	if e.closed {
		return fmt.Errorf("%w: %s", ErrClosed, e.root)
	}
	e.closed = true
	for _, stop := range e.stopInput {
		stop()
	}
	close(e.stop)
	e.cancel()
	e.wg.Wait()
	if !e.started {
		close(e.events)
	}
	return nil
}

// run applies what arrives in the inbox until the engine stops.
func (e *engine) run() {
	ctx := e.ctx
	var retry <-chan time.Time
	resync := false
	for {
		select {
		case <-e.stop:
			return
		case <-retry:
		case <-e.inbox.ready:
		}
		dirty := make(map[string]bool)
		for _, in := range e.inbox.takeAll() {
			if in.isState {
				resync = e.onState(in.state) || resync
			} else if e.onEvent(in.event, dirty) {
				resync = true
			}
		}
		err := e.apply(ctx, resync, dirty)
		retry = nil
		if resync = err != nil; resync {
			if ctx.Err() != nil {
				return
			}
			e.cfg.log.Debug("cache out of step; trying again", zap.String("root", e.root), zap.Error(err))
			retry = time.After(retryEvery)
		}
	}
}

// apply reads again the whole tree (resync) or the dirty nodes.
func (e *engine) apply(ctx context.Context, resync bool, dirty map[string]bool) error {
	if resync {
		return e.refresh(ctx, e.root, true)
	}
	paths := make([]string, 0, len(dirty))
	for p := range dirty {
		paths = append(paths, p)
	}
	slices.Sort(paths) // parents before children
	for _, p := range paths {
		if p != e.root && !e.holds(p) {
			continue // not ours: its parent's child watch reports it
		}
		if err := e.refresh(ctx, p, false); err != nil {
			return err
		}
	}
	return nil
}

// onState reports a connection change and whether the tree must be read
// again.
func (e *engine) onState(s framework.ConnectionState) bool {
	switch s {
	case framework.Suspended:
		e.outbox.push(Event{Type: ConnectionSuspended})
	case framework.Lost:
		e.armed = make(map[watchKey]bool) // the session's watches are gone
		e.outbox.push(Event{Type: ConnectionLost})
	case framework.Reconnected, framework.Connected:
		e.outbox.push(Event{Type: ConnectionReconnected})
		return true
	}
	return false
}

// onEvent notes which watch fired and marks the node to read again. It
// reports whether every watch was dropped (the session ended), so that the
// whole tree must be read again.
func (e *engine) onEvent(ev zk.Event, dirty map[string]bool) bool {
	if ev.Type == zk.EventNotWatching {
		e.armed = make(map[watchKey]bool)
		return true
	}
	if !e.within(ev.Path) {
		return false
	}
	switch ev.Type {
	case zk.EventNodeCreated:
		delete(e.armed, watchKey{ev.Path, existWatch})
	case zk.EventNodeDataChanged:
		delete(e.armed, watchKey{ev.Path, dataWatch})
		delete(e.armed, watchKey{ev.Path, existWatch})
	case zk.EventNodeChildrenChanged:
		delete(e.armed, watchKey{ev.Path, childWatch})
	case zk.EventNodeDeleted:
		delete(e.armed, watchKey{ev.Path, dataWatch})
		delete(e.armed, watchKey{ev.Path, childWatch})
		delete(e.armed, watchKey{ev.Path, existWatch})
	}
	dirty[ev.Path] = true
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

// refresh reads p (and, with deep, every node held below it) and brings the
// cache in line with what it read, reporting the differences. It arms the
// watches p needs that are not armed yet, and only those.
func (e *engine) refresh(ctx context.Context, p string, deep bool) error {
	data, stat, err := e.readData(ctx, p)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		e.remove(p)
		if p == e.root && !e.armed[watchKey{p, existWatch}] {
			st, _, err := e.c.ExistsW(ctx, p)
			if err != nil {
				return err
			}
			e.armed[watchKey{p, existWatch}] = true
			if st != nil { // created meanwhile
				return e.refresh(ctx, p, deep)
			}
		}
		return nil
	case err != nil:
		return err
	}
	e.hold(p, data, stat)
	if e.cfg.maxDepth >= 0 && e.depth(p) >= e.cfg.maxDepth {
		return nil
	}
	names, err := e.readChildren(ctx, p)
	if errors.Is(err, zk.ErrNoNode) {
		e.remove(p) // deleted since its data was read
		return nil
	}
	if err != nil {
		return err
	}
	held := e.childrenOf(p)
	var wanted []string
	for _, name := range names {
		if child := framework.JoinPath(p, name); e.cfg.follow(child) {
			wanted = append(wanted, name)
		}
	}
	for name := range held {
		if !slices.Contains(wanted, name) {
			e.remove(framework.JoinPath(p, name))
		}
	}
	for _, name := range wanted {
		if _, ok := held[name]; ok && !deep {
			continue
		}
		if err := e.refresh(ctx, framework.JoinPath(p, name), deep); err != nil {
			return err
		}
	}
	return nil
}

// readData reads p's data, arming its data watch unless it is armed.
func (e *engine) readData(ctx context.Context, p string) ([]byte, *zk.Stat, error) {
	key := watchKey{p, dataWatch}
	if e.armed[key] {
		return e.c.GetData(ctx, p)
	}
	data, stat, _, err := e.c.GetDataW(ctx, p)
	if err == nil {
		e.armed[key] = true
	}
	return data, stat, err
}

// readChildren lists p's children, arming its child watch unless it is armed.
func (e *engine) readChildren(ctx context.Context, p string) ([]string, error) {
	key := watchKey{p, childWatch}
	if e.armed[key] {
		names, _, err := e.c.Children(ctx, p)
		return names, err
	}
	names, _, _, err := e.c.ChildrenW(ctx, p)
	if err == nil {
		e.armed[key] = true
	}
	return names, err
}

// hold records p as read, reporting it added (also when it was deleted and
// created again since: a new czxid) or updated (a new data version).
func (e *engine) hold(p string, data []byte, stat *zk.Stat) {
	if !e.cfg.data {
		data = nil
	}
	e.mu.RLock()
	old := e.nodes[p]
	e.mu.RUnlock()
	if old != nil && old.node.Stat.Czxid != stat.Czxid {
		e.remove(p)
		old = nil
	}
	n := Node{Path: p, Data: data, Stat: *stat}
	e.mu.Lock()
	var was zk.Stat
	if old == nil {
		e.nodes[p] = &entry{node: n, children: make(map[string]struct{})}
		if parent := e.parentEntryLocked(p); parent != nil {
			parent.children[lastElem(p)] = struct{}{}
		}
	} else {
		was, old.node = old.node.Stat, n
	}
	e.mu.Unlock()
	switch {
	case old == nil:
		e.report(NodeAdded, n)
	case was.Mzxid != stat.Mzxid || was.Version != stat.Version:
		e.report(NodeUpdated, n)
	}
}

// remove drops p and everything held below it, reporting each node removed,
// children before their parent.
func (e *engine) remove(p string) {
	for name := range e.childrenOf(p) {
		e.remove(framework.JoinPath(p, name))
	}
	e.mu.Lock()
	old, ok := e.nodes[p]
	if ok {
		delete(e.nodes, p)
		if parent := e.parentEntryLocked(p); parent != nil {
			delete(parent.children, lastElem(p))
		}
	}
	e.mu.Unlock()
	if ok {
		e.report(NodeRemoved, old.node)
	}
}

func (e *engine) report(t EventType, n Node) {
	if e.hideRoot && n.Path == e.root {
		return
	}
	e.outbox.push(Event{Type: t, Node: n})
}

// childrenOf returns a copy of the names held below p.
func (e *engine) childrenOf(p string) map[string]struct{} {
	e.mu.RLock()
	defer e.mu.RUnlock()
	en := e.nodes[p]
	if en == nil {
		return nil
	}
	out := make(map[string]struct{}, len(en.children))
	for name := range en.children {
		out[name] = struct{}{}
	}
	return out
}

func (e *engine) parentEntryLocked(p string) *entry {
	if p == e.root {
		return nil
	}
	i := strings.LastIndex(p, "/")
	parent := p[:i]
	if parent == "" {
		parent = "/"
	}
	return e.nodes[parent]
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
	en, ok := e.nodes[p]
	if !ok || (e.hideRoot && p == e.root) {
		return Node{}, false
	}
	return en.node, true
}

// snapshot returns every node held (but a hidden root), sorted by path.
func (e *engine) snapshot() []Node {
	e.mu.RLock()
	out := make([]Node, 0, len(e.nodes))
	for p, en := range e.nodes {
		if !(e.hideRoot && p == e.root) {
			out = append(out, en.node)
		}
	}
	e.mu.RUnlock()
	slices.SortFunc(out, func(a, b Node) int { return strings.Compare(a.Path, b.Path) })
	return out
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
