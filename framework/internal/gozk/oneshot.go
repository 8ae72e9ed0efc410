package gozk

import (
	"encoding/binary"

	"github.com/go-zookeeper/zk"
)

// Before ZooKeeper 3.9 a connection holds at most one watch per path and
// list, with one mode: a one-shot watch set on a path where the connection
// holds a persistent watch turns it into a one-shot watch, and removing a
// persistent watch removes a one-shot watch on the same path too. So that
// the framework can undo both, the Gate follows the one-shot watches
// go-zookeeper holds, as go-zookeeper does: set by a read request with its
// watch flag, kept across the connections of a session (go-zookeeper sets
// them again with SetWatches), gone when a notification of their kind comes
// or the session ends.

// The kinds of one-shot watch, as bits.
const (
	OneShotData  uint8 = 1 << iota // exists or getData: created, deleted, data changed
	OneShotChild                   // getChildren: children changed, deleted
)

// The opcodes of the read requests that can set a one-shot watch.
const (
	opGetData      int32 = 4
	opGetChildren  int32 = 8
	opGetChildren2 int32 = 12
)

// watchRequest returns the path and kind of the one-shot watch that
// request p (a whole frame of go-zookeeper's) sets, if it sets one.
func watchRequest(p []byte) (path string, kind uint8, ok bool) {
	if len(p) < 16 || int32(binary.BigEndian.Uint32(p[4:8])) < 0 {
		return "", 0, false
	}
	switch int32(binary.BigEndian.Uint32(p[8:12])) {
	case opExists, opGetData:
		kind = OneShotData
	case opGetChildren, opGetChildren2:
		kind = OneShotChild
	default:
		return "", 0, false
	}
	n := int(int32(binary.BigEndian.Uint32(p[12:16])))
	if n < 0 || len(p) < 16+n+1 || p[16+n] == 0 {
		return "", 0, false
	}
	return string(p[16 : 16+n]), kind, true
}

// noteOneShot records a one-shot watch go-zookeeper set.
func (g *Gate) noteOneShot(path string, kind uint8) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.oneShot == nil {
		g.oneShot = make(map[string]uint8)
	}
	g.oneShot[path] |= kind
}

// fireOneShot forgets the one-shot watches notification n fires.
func (g *Gate) fireOneShot(n Notification) {
	var kinds uint8
	switch n.Type {
	case zk.EventNodeCreated, zk.EventNodeDataChanged:
		kinds = OneShotData
	case zk.EventNodeChildrenChanged:
		kinds = OneShotChild
	case zk.EventNodeDeleted:
		kinds = OneShotData | OneShotChild
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if k := g.oneShot[n.Path] &^ kinds; k != 0 {
		g.oneShot[n.Path] = k
	} else {
		delete(g.oneShot, n.Path)
	}
}

// OneShot returns the kinds of one-shot watch go-zookeeper holds on path.
func (l *Link) OneShot(path string) uint8 {
	g := l.c.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.oneShot[path]
}

// WatchRequest is the body of a read request that sets a one-shot watch on
// path: exists (OneShotData) or getChildren (OneShotChild); its opcode is
// returned with it.
func WatchRequest(path string, kind uint8) (op int32, body []byte) {
	body = binary.BigEndian.AppendUint32(nil, uint32(len(path)))
	body = append(body, path...)
	body = append(body, 1)
	if kind == OneShotChild {
		return opGetChildren, body
	}
	return opExists, body
}

// oneShotPaths returns the paths go-zookeeper holds one-shot watches on.
func (g *Gate) oneShotPaths() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	paths := make([]string, 0, len(g.oneShot))
	for p := range g.oneShot {
		paths = append(paths, p)
	}
	return paths
}
