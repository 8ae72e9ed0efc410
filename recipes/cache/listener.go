package cache

import (
	"fmt"
	"strings"
	"sync/atomic"
)

// ChangeType is the kind of a change a CuratorCache reports to its
// Listeners, as Curator's CuratorCacheListener.Type.
type ChangeType int

const (
	// NodeCreated: a node the cache did not hold; old is zero.
	NodeCreated ChangeType = iota + 1
	// NodeChanged: a node it holds has a new data version; old is the node
	// as last reported, node the new one. A node deleted and created again
	// is NodeDeleted then NodeCreated, never NodeChanged, even when its new
	// version equals the old one.
	NodeChanged
	// NodeDeleted: a node it held is gone; old is it as held last, node is
	// zero.
	NodeDeleted
)

// String names the type as Curator does ("NODE_CREATED", ...).
func (t ChangeType) String() string {
	switch t {
	case NodeCreated:
		return "NODE_CREATED"
	case NodeChanged:
		return "NODE_CHANGED"
	case NodeDeleted:
		return "NODE_DELETED"
	}
	return fmt.Sprintf("ChangeType(%d)", int(t))
}

// Listener is told of a CuratorCache's changes, as Curator's
// CuratorCacheListener: Event for each change (old or node zero, Path "",
// where Curator passes null), Initialized once the first load is reported.
// Build one with NewListener, or implement it.
type Listener interface {
	Event(t ChangeType, old, node Node)
	Initialized()
}

// ListenerBuilder assembles a Listener from callbacks, as Curator's
// CuratorCacheListenerBuilder; each For method adds one, called in the
// order added. A nil callback is reported by Build.
type ListenerBuilder struct {
	parts     []Listener
	after     bool
	nilPart   string // the first For method given nil
	partCount int
}

// NewListener starts a Listener (Curator's CuratorCacheListener.builder()).
func NewListener() *ListenerBuilder { return &ListenerBuilder{} }

// funcs is a Listener made of optional callbacks.
type funcs struct {
	event func(t ChangeType, old, node Node)
	init  func()
}

func (f funcs) Event(t ChangeType, old, node Node) {
	if f.event != nil {
		f.event(t, old, node)
	}
}

func (f funcs) Initialized() {
	if f.init != nil {
		f.init()
	}
}

func (b *ListenerBuilder) add(name string, isNil bool, l Listener) *ListenerBuilder {
	b.partCount++
	if isNil && b.nilPart == "" {
		b.nilPart = fmt.Sprintf("%s (callback %d)", name, b.partCount)
	}
	b.parts = append(b.parts, l)
	return b
}

// ForAll adds l, told of every change and of Initialized.
func (b *ListenerBuilder) ForAll(l Listener) *ListenerBuilder {
	return b.add("ForAll", l == nil, l)
}

// ForCreates adds f, called with each created node.
func (b *ListenerBuilder) ForCreates(f func(node Node)) *ListenerBuilder {
	return b.add("ForCreates", f == nil, funcs{event: func(t ChangeType, _, node Node) {
		if t == NodeCreated {
			f(node)
		}
	}})
}

// ForChanges adds f, called with each changed node, before and after.
func (b *ListenerBuilder) ForChanges(f func(old, node Node)) *ListenerBuilder {
	return b.add("ForChanges", f == nil, funcs{event: func(t ChangeType, old, node Node) {
		if t == NodeChanged {
			f(old, node)
		}
	}})
}

// ForCreatesAndChanges adds f, called with each created node (old zero) and
// each changed one.
func (b *ListenerBuilder) ForCreatesAndChanges(f func(old, node Node)) *ListenerBuilder {
	return b.add("ForCreatesAndChanges", f == nil, funcs{event: func(t ChangeType, old, node Node) {
		if t == NodeCreated || t == NodeChanged {
			f(old, node)
		}
	}})
}

// ForDeletes adds f, called with each deleted node as held last.
func (b *ListenerBuilder) ForDeletes(f func(old Node)) *ListenerBuilder {
	return b.add("ForDeletes", f == nil, funcs{event: func(t ChangeType, old, _ Node) {
		if t == NodeDeleted {
			f(old)
		}
	}})
}

// ForInitialized adds f, called once the first load is reported.
func (b *ListenerBuilder) ForInitialized(f func()) *ListenerBuilder {
	return b.add("ForInitialized", f == nil, funcs{init: f})
}

// ForPathChildrenCache adds f, told of the changes of parent's children in
// a PathChildrenCache's terms (NodeAdded, NodeUpdated, NodeRemoved and
// Initialized), for code written against PathChildrenCache. Unlike Curator's
// bridge, which passes on the whole subtree's changes, it passes on only
// those of parent's direct children, as a PathChildrenCache reports them.
func (b *ListenerBuilder) ForPathChildrenCache(parent string, f func(Event)) *ListenerBuilder {
	prefix := strings.TrimSuffix(parent, "/") + "/"
	isChild := func(p string) bool {
		return strings.HasPrefix(p, prefix) && !strings.Contains(p[len(prefix):], "/") && len(p) > len(prefix)
	}
	return b.add("ForPathChildrenCache", f == nil, bridge(f, isChild))
}

// ForTreeCache adds f, told of every change in a TreeCache's terms
// (NodeAdded, NodeUpdated, NodeRemoved and Initialized), for code written
// against TreeCache.
func (b *ListenerBuilder) ForTreeCache(f func(Event)) *ListenerBuilder {
	return b.add("ForTreeCache", f == nil, bridge(f, func(string) bool { return true }))
}

// ForNodeCache adds f, called on every change, as Curator's NodeCacheListener
// (nodeChanged); meant for a cache made WithSingleNodeCache, whose only node
// is the one a NodeCache follows.
func (b *ListenerBuilder) ForNodeCache(f func()) *ListenerBuilder {
	return b.add("ForNodeCache", f == nil, funcs{event: func(ChangeType, Node, Node) { f() }})
}

// AfterInitialized makes the built Listener pass on no change until the
// first load is reported: the nodes found at Start are not reported as
// created.
func (b *ListenerBuilder) AfterInitialized() *ListenerBuilder {
	b.after = true
	return b
}

// Build returns the Listener, or ErrInvalidArgument naming the first
// callback that was nil.
func (b *ListenerBuilder) Build() (Listener, error) {
	if b.nilPart != "" {
		return nil, fmt.Errorf("%w: nil callback given to %s", ErrInvalidArgument, b.nilPart)
	}
	l := &built{parts: append([]Listener(nil), b.parts...)}
	l.initialized.Store(!b.after)
	return l, nil
}

// built is what Build returns.
type built struct {
	parts       []Listener
	initialized atomic.Bool
}

func (l *built) Event(t ChangeType, old, node Node) {
	if !l.initialized.Load() {
		return
	}
	for _, p := range l.parts {
		p.Event(t, old, node)
	}
}

func (l *built) Initialized() {
	l.initialized.Store(true)
	for _, p := range l.parts {
		p.Initialized()
	}
}

// bridge passes on the changes of the paths that pass to f as the older
// caches' Events.
func bridge(f func(Event), pass func(path string) bool) Listener {
	return funcs{
		event: func(t ChangeType, old, node Node) {
			switch t {
			case NodeCreated:
				if pass(node.Path) {
					f(Event{Type: NodeAdded, Node: node})
				}
			case NodeChanged:
				if pass(node.Path) {
					f(Event{Type: NodeUpdated, Node: node, Old: old})
				}
			case NodeDeleted:
				if pass(old.Path) {
					f(Event{Type: NodeRemoved, Node: old})
				}
			}
		},
		init: func() { f(Event{Type: Initialized}) },
	}
}
