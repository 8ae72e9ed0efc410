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
// which watches a read leaves behind. oneShot arms a one-shot watch on each
// read that needs one; recursiveReads (recursive.go) arms nothing, one
// persistent watch on the root reporting every change below it. The reads
// of one refresh run concurrently, each on a path of its own.
type transport interface {
	// readData reads p's data and leaves a watch on its change or deletion.
	readData(ctx context.Context, p string) ([]byte, *zk.Stat, error)
	// readChildren lists p's children and leaves a watch on their change.
	readChildren(ctx context.Context, p string) ([]string, error)
	// awaitCreation leaves a watch on the creation of the absent node p and
	// reports whether p exists after all.
	awaitCreation(ctx context.Context, p string) (bool, error)
	// childrenWatched reports whether a change of p's children will be
	// notified (p's child watch is armed), so that a read of p's data alone
	// misses nothing.
	childrenWatched(p string) bool
	// notified takes note that a watch fired with ev.
	notified(ev zk.Event)
	// reset forgets every watch: the session that held them is gone, or
	// their notifications are no longer heard.
	reset()
	// recursive reports whether every change below the root is notified,
	// each node's creation included (a persistent recursive watch): a node
	// read anew need not be listed, its children's creations being notified
	// after its own, and a created node below a node held is read.
	recursive() bool
}

// watchKind is which of a node's watches is armed: one bit each.
type watchKind uint8

const (
	dataWatch  watchKind = 1 << iota // GetDataW: data changes and deletion
	childWatch                       // ChildrenW: children added or removed
	existWatch                       // ExistsW on the absent root: its creation
)

// oneShot is the transport of one-shot watches: it arms a watch only where
// none is armed, so that each node has at most one data watch and one child
// watch at a time. Its reads may run concurrently on distinct paths.
type oneShot struct {
	c     *framework.Client
	mu    sync.Mutex
	armed map[string]watchKind // the watches armed on each path; no entry for none
}

func newOneShot(c *framework.Client) *oneShot {
	return &oneShot{c: c, armed: make(map[string]watchKind)}
}

func (o *oneShot) readData(ctx context.Context, p string) ([]byte, *zk.Stat, error) {
	if o.isArmed(p, dataWatch) {
		return o.c.GetData(ctx, p)
	}
	data, stat, _, err := o.c.GetDataW(ctx, p)
	if err == nil || errors.Is(err, framework.ErrDecompression) { // the watch is set either way
		o.arm(p, dataWatch)
	}
	return data, stat, err
}

func (o *oneShot) readChildren(ctx context.Context, p string) ([]string, error) {
	if o.isArmed(p, childWatch) {
		names, _, err := o.c.Children(ctx, p)
		return names, err
	}
	names, _, _, err := o.c.ChildrenW(ctx, p)
	if err == nil {
		o.arm(p, childWatch)
	}
	return names, err
}

func (o *oneShot) awaitCreation(ctx context.Context, p string) (bool, error) {
	if o.isArmed(p, existWatch) {
		return false, nil
	}
	st, _, err := o.c.ExistsW(ctx, p)
	if err != nil {
		return false, err
	}
	o.arm(p, existWatch)
	return st != nil, nil
}

func (o *oneShot) childrenWatched(p string) bool { return o.isArmed(p, childWatch) }

func (o *oneShot) notified(ev zk.Event) {
	switch ev.Type {
	case zk.EventNodeCreated:
		o.disarm(ev.Path, existWatch)
	case zk.EventNodeDataChanged:
		o.disarm(ev.Path, dataWatch|existWatch)
	case zk.EventNodeChildrenChanged:
		o.disarm(ev.Path, childWatch)
	case zk.EventNodeDeleted:
		o.disarm(ev.Path, dataWatch|childWatch|existWatch)
	}
}

func (o *oneShot) recursive() bool { return false }

func (o *oneShot) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	clear(o.armed)
}

func (o *oneShot) isArmed(p string, w watchKind) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.armed[p]&w != 0
}

func (o *oneShot) arm(p string, w watchKind) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.armed[p] |= w
}

func (o *oneShot) disarm(p string, w watchKind) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if left := o.armed[p] &^ w; left != 0 {
		o.armed[p] = left
	} else {
		delete(o.armed, p)
	}
}
