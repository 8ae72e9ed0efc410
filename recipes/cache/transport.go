package cache

import (
	"context"
	"errors"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// transport is how an engine reads nodes and learns of their changes. The
// engine decides what to read and what to report; the transport decides
// which watches a read leaves behind. oneShot, the only transport
// go-zookeeper v1.0.4 allows, arms a one-shot watch on each read that needs
// one. A persistent recursive watch (ZooKeeper 3.6's addWatch) would be
// another: reads that arm nothing, one watch added at the root whose
// notifications go through notified like these; no cache's API changes.
// The reads of one refresh run concurrently, each on a path of its own.
type transport interface {
	// readData reads p's data and leaves a watch on its change or deletion.
	readData(ctx context.Context, p string) ([]byte, *zk.Stat, error)
	// readChildren lists p's children and leaves a watch on their change.
	readChildren(ctx context.Context, p string) ([]string, error)
	// awaitCreation leaves a watch on the creation of the absent node p and
	// reports whether p exists after all.
	awaitCreation(ctx context.Context, p string) (bool, error)
	// notified takes note that a watch fired with ev.
	notified(ev zk.Event)
	// reset forgets every watch: the session that held them is gone, or
	// their notifications are no longer heard.
	reset()
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

// oneShot is the transport of one-shot watches: it arms a watch only where
// none is armed, so that each node has at most one data watch and one child
// watch at a time. Its reads may run concurrently on distinct paths.
type oneShot struct {
	c     *framework.Client
	mu    sync.Mutex
	armed map[watchKey]bool
}

func newOneShot(c *framework.Client) *oneShot {
	return &oneShot{c: c, armed: make(map[watchKey]bool)}
}

func (o *oneShot) readData(ctx context.Context, p string) ([]byte, *zk.Stat, error) {
	key := watchKey{p, dataWatch}
	if o.isArmed(key) {
		return o.c.GetData(ctx, p)
	}
	data, stat, _, err := o.c.GetDataW(ctx, p)
	if err == nil || errors.Is(err, framework.ErrDecompression) { // the watch is set either way
		o.arm(key)
	}
	return data, stat, err
}

func (o *oneShot) readChildren(ctx context.Context, p string) ([]string, error) {
	key := watchKey{p, childWatch}
	if o.isArmed(key) {
		names, _, err := o.c.Children(ctx, p)
		return names, err
	}
	names, _, _, err := o.c.ChildrenW(ctx, p)
	if err == nil {
		o.arm(key)
	}
	return names, err
}

func (o *oneShot) awaitCreation(ctx context.Context, p string) (bool, error) {
	key := watchKey{p, existWatch}
	if o.isArmed(key) {
		return false, nil
	}
	st, _, err := o.c.ExistsW(ctx, p)
	if err != nil {
		return false, err
	}
	o.arm(key)
	return st != nil, nil
}

func (o *oneShot) notified(ev zk.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch ev.Type {
	case zk.EventNodeCreated:
		delete(o.armed, watchKey{ev.Path, existWatch})
	case zk.EventNodeDataChanged:
		delete(o.armed, watchKey{ev.Path, dataWatch})
		delete(o.armed, watchKey{ev.Path, existWatch})
	case zk.EventNodeChildrenChanged:
		delete(o.armed, watchKey{ev.Path, childWatch})
	case zk.EventNodeDeleted:
		delete(o.armed, watchKey{ev.Path, dataWatch})
		delete(o.armed, watchKey{ev.Path, childWatch})
		delete(o.armed, watchKey{ev.Path, existWatch})
	}
}

func (o *oneShot) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	clear(o.armed)
}

func (o *oneShot) isArmed(key watchKey) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.armed[key]
}

func (o *oneShot) arm(key watchKey) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.armed[key] = true
}
