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
// watch flag (counted from the request, and kept unless its reply says the
// server set none: getData or getChildren of a missing node), kept across the connections of a session (go-zookeeper sets
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

// watchRequest returns the path, kind and opcode of the one-shot watch
// that request p (a whole frame of go-zookeeper's) sets, if it sets one.
func watchRequest(p []byte) (path string, kind uint8, op int32, ok bool) {
	if len(p) < 16 || int32(binary.BigEndian.Uint32(p[4:8])) < 0 {
		return "", 0, 0, false
	}
	switch op = int32(binary.BigEndian.Uint32(p[8:12])); op {
	case opExists, opGetData:
		kind = OneShotData
	case opGetChildren, opGetChildren2:
		kind = OneShotChild
	default:
		return "", 0, 0, false
	}
	n := int(int32(binary.BigEndian.Uint32(p[12:16])))
	if n < 0 || len(p) < 16+n+1 || p[16+n] == 0 {
		return "", 0, 0, false
	}
	return string(p[16 : 16+n]), kind, op, true
}

// oneShotRequest is a request of go-zookeeper's that sets a one-shot watch,
// until its reply says whether the server set it.
type oneShotRequest struct {
	c    *conn
	path string
	kind uint8
	op   int32
}

// noteOneShot records that go-zookeeper asks for a one-shot watch with its
// request xid on c: until the reply, the watch counts as held.
func (g *Gate) noteOneShot(c *conn, xid int32, path string, kind uint8, op int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.oneShotAsked == nil {
		g.oneShotAsked = make(map[int32]oneShotRequest)
	}
	g.oneShotAsked[xid] = oneShotRequest{c: c, path: path, kind: kind, op: op}
}

// oneShotReplied records the server's answer to go-zookeeper's request xid:
// a watch request's watch is held unless the server refused it (getData
// and getChildren set none on a missing node; exists does).
func (g *Gate) oneShotReplied(xid, code int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := g.oneShotAsked[xid]
	if !ok {
		return
	}
	delete(g.oneShotAsked, xid)
	if code != codeOK && !(r.op == opExists && code == codeNoNode) {
		return
	}
	if g.oneShot == nil {
		g.oneShot = make(map[string]uint8)
	}
	g.oneShot[r.path] |= r.kind
}

// dropAsked forgets the watch requests of c, whose replies will not come:
// go-zookeeper fails those requests and holds no watch for them.
func (g *Gate) dropAsked(c *conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for xid, r := range g.oneShotAsked {
		if r.c == c {
			delete(g.oneShotAsked, xid)
		}
	}
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

// OneShot returns the kinds of one-shot watch go-zookeeper holds on path,
// or has asked for and not yet had the answer.
func (l *Link) OneShot(path string) uint8 {
	g := l.c.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	kinds := g.oneShot[path]
	for _, r := range g.oneShotAsked {
		if r.path == path {
			kinds |= r.kind
		}
	}
	return kinds
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
	for _, r := range g.oneShotAsked {
		if _, held := g.oneShot[r.path]; !held {
			paths = append(paths, r.path)
		}
	}
	return paths
}
