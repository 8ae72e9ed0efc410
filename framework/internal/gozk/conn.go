package gozk

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// ReadHold bounds how long a reply that records a zxid is held back for
	// SetWatches. Replies that record none (authentication, pings, watch
	// events) pass at once, so the bound only has to outlast go-zookeeper's
	// own steps between the handshake and SetWatches on a starved machine;
	// the reply has been read off the socket by then, so go-zookeeper's read
	// deadline does not run while it waits.
	ReadHold = 2 * time.Second
	// opSetWatches is ZooKeeper's opcode of a SetWatches request.
	opSetWatches = 101
	// replyHeaderLen is a reply's length prefix and header: xid, zxid, err.
	replyHeaderLen = 4 + 4 + 8 + 4
	// connectResponseMin is the least a connect response holds: protocol
	// version, timeout, session id and the password's length.
	connectResponseMin = 4 + 4 + 8 + 4
	// minHandshakeWait is the least a connect response is waited for.
	minHandshakeWait = time.Second
)

// errNoSetWatches ends a connection whose reply was held back for
// ReadHold without go-zookeeper writing SetWatches: delivering the reply
// then would race with go-zookeeper's read of the zxid, so go-zookeeper
// gets a broken connection instead and connects again.
var errNoSetWatches = errors.New("framework: no SetWatches request on a resumed connection")

// conn is one connection through a Gate. The bytes go-zookeeper reads are
// the bytes the server sent, less the replies to our own requests; only
// when it gets them changes. The bytes it writes go out as written, whole
// requests never interleaved with ours.
type conn struct {
	net.Conn
	addr    string // the address dialed, as go-zookeeper named it
	gate    *Gate
	once    sync.Once
	report  func()
	written chan struct{} // closed once SetWatches is written

	link     atomic.Pointer[Link] // set once the session is established
	released chan struct{}        // closed when go-zookeeper's requests may go out
	closed   chan struct{}        // closed by Close
	close    sync.Once

	wmu       sync.Mutex   // one whole request at a time
	zkWriteBy atomic.Int64 // go-zookeeper's write deadline (UnixNano, 0 for none)

	// The requests of ours behind a request of go-zookeeper's, by its xid,
	// until its reply is read (its zxid is recorded in them).
	bmu     sync.Mutex
	behind  map[int32]*Behind
	nBehind atomic.Int32

	// Reads of the connect response (go-zookeeper's handshake, on its own
	// goroutine, before the receive loop starts).
	handshake    []byte       // the length prefix and the response, as far as read
	handshakeRem int64        // bytes of the response body still to come, once the prefix is read
	handshakeBy  atomic.Int64 // when the connect response is given up (UnixNano, 0 until the request is written)
	zkReadBy     atomic.Int64 // go-zookeeper's read deadline (UnixNano, 0 for none)

	// Reads of the receive loop, one goroutine.
	decided bool   // whether replies are held was decided
	open    bool   // replies are not held for SetWatches
	ahead   []byte // bytes read off the connection, not yet delivered
	rest    int64  // bytes of the current reply still to pass before the next header
}

func newConn(nc net.Conn, addr string, g *Gate, rewatched func()) *conn {
	return &conn{Conn: nc, addr: addr, gate: g, report: rewatched, written: make(chan struct{}),
		released: make(chan struct{}), closed: make(chan struct{})}
}

// Close closes the connection, forgets it and fails our requests on it.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.close.Do(func() {
		close(c.closed)
		c.gate.untrack(c)
		c.gate.dropAsked(c)
		if l := c.link.Load(); l != nil {
			l.end()
		}
	})
	return err
}

// SetReadDeadline records go-zookeeper's read deadline and applies it.
func (c *conn) SetReadDeadline(t time.Time) error {
	c.zkReadBy.Store(unixNano(t))
	return c.Conn.SetReadDeadline(t)
}

// SetWriteDeadline records go-zookeeper's deadline, applied to its next write
// (ours set their own under the same lock).
func (c *conn) SetWriteDeadline(t time.Time) error {
	c.zkWriteBy.Store(unixNano(t))
	return nil
}

// SetDeadline is SetReadDeadline, and SetWriteDeadline recorded.
func (c *conn) SetDeadline(t time.Time) error {
	c.zkWriteBy.Store(unixNano(t))
	return c.Conn.SetReadDeadline(t)
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Write sees whole requests: go-zookeeper writes each one, length prefix,
// xid and opcode first, in a single call. The connect request goes out at
// once; every later one waits until the connection's Exchange has ended.
// The connect request, which has no xid or opcode, starts with a zero
// protocol version where a request's xid is positive. A failed write is a
// connection loss (it matches zk.ErrConnectionClosed): go-zookeeper hands
// the error to the request it was writing.
func (c *conn) Write(p []byte) (int, error) {
	n, err := c.write(p)
	if err != nil {
		err = connectionLoss{err}
	}
	return n, err
}

func (c *conn) write(p []byte) (int, error) {
	if len(p) >= 20 && binary.BigEndian.Uint32(p[4:8]) == 0 && c.handshakeBy.Load() == 0 {
		c.boundHandshake(time.Duration(int32(binary.BigEndian.Uint32(p[16:20]))) * time.Millisecond)
	}
	if c.link.Load() != nil {
		select {
		case <-c.released:
		case <-c.closed:
			return 0, net.ErrClosed
		}
	}
	setWatches := len(p) >= 12 && int32(binary.BigEndian.Uint32(p[4:8])) > 0 &&
		int32(binary.BigEndian.Uint32(p[8:12])) == opSetWatches
	if setWatches {
		c.once.Do(func() {
			close(c.written)
			c.report()
		})
	}
	path, kind, op, watch := watchRequest(p)
	if watch {
		c.gate.noteOneShot(c, int32(binary.BigEndian.Uint32(p[4:8])), path, kind, op)
	}
	var paths []string
	switch {
	case c.gate.hooks.OneShot == nil:
	case watch:
		paths = []string{path}
	case setWatches: // go-zookeeper sets every one-shot watch again
		paths = c.gate.oneShotPaths()
	}
	return c.writeZK(p, paths)
}

// writeZK writes a request of go-zookeeper's with its deadline and, when it
// sets one-shot watches on paths, the requests Hooks.OneShot puts behind
// it, before any other request.
func (c *conn) writeZK(p []byte, paths []string) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var by time.Time
	if ns := c.zkWriteBy.Load(); ns != 0 {
		by = time.Unix(0, ns)
	}
	c.Conn.SetWriteDeadline(by)
	var b *Behind
	if l := c.link.Load(); l != nil && len(paths) > 0 {
		b = &Behind{l: l}
		for _, path := range paths {
			c.gate.hooks.OneShot(b, path)
		}
		if len(b.frames) > 0 {
			c.awaitReply(int32(binary.BigEndian.Uint32(p[4:8])), b)
		}
	}
	n, err := c.Conn.Write(p)
	if err != nil || b == nil || len(b.frames) == 0 {
		return n, err
	}
	if _, err := c.Conn.Write(b.frames); err != nil {
		c.Close() // go-zookeeper's frame went out whole; ours may not have
	}
	return n, err
}

// awaitReply records b as behind go-zookeeper's request xid, for the zxid
// of its reply.
func (c *conn) awaitReply(xid int32, b *Behind) {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	if c.behind == nil {
		c.behind = make(map[int32]*Behind)
	}
	c.behind[xid] = b
	c.nBehind.Add(1)
}

// replied records the zxid of the reply to go-zookeeper's request xid in
// the Behind that waits for it, if any.
func (c *conn) replied(xid int32, zxid int64) {
	if c.nBehind.Load() == 0 {
		return
	}
	c.bmu.Lock()
	defer c.bmu.Unlock()
	if b, ok := c.behind[xid]; ok {
		delete(c.behind, xid)
		c.nBehind.Add(-1)
		b.zkZxid, b.zkReplied = zxid, true
	}
}

// Behind queues requests of ours to go out right behind a request of
// go-zookeeper's, in the same hold of the connection.
type Behind struct {
	l      *Link
	frames []byte

	// Set on the goroutine that reads the connection when go-zookeeper's
	// reply is read, before the replies to ours behind it.
	zkZxid    int64
	zkReplied bool
}

// Changed reports whether the server may have applied a change between
// go-zookeeper's request and ours that got reply r: the two replies record
// different zxids, or go-zookeeper's reply was not seen. ZooKeeper applies
// no write while it serves a read, and serves a connection's requests in
// order, so equal zxids mean none came between. Call it from the request's
// done.
func (b *Behind) Changed(r Reply) bool { return !b.zkReplied || b.zkZxid != r.Zxid }

// Send is Link.Send, the request written right behind go-zookeeper's.
func (b *Behind) Send(op int32, body []byte, done func(Reply, error)) {
	if xid, ok := b.l.register(done); ok {
		b.frames = append(b.frames, requestFrame(xid, op, body)...)
	}
}

// Batch calls fn with the connection held, then writes the requests fn
// sent through b together: no request of go-zookeeper's goes between them,
// and every one-shot watch go-zookeeper asked for before them is in what
// fn reads of Link.OneShot. fn must not block.
func (l *Link) Batch(fn func(b *Behind)) {
	c := l.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b := &Behind{l: l}
	fn(b)
	if len(b.frames) == 0 {
		return
	}
	c.Conn.SetWriteDeadline(time.Now().Add(l.timeout * 2 / 3))
	if _, err := c.Conn.Write(b.frames); err != nil {
		c.Close() // a partial frame would garble the stream: the connection ends
	}
}

// writeOwn writes a request of ours whole, within timeout.
func (c *conn) writeOwn(frame []byte, timeout time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.Conn.SetWriteDeadline(time.Now().Add(timeout))
	_, err := c.Conn.Write(frame)
	return err
}

// Read passes the connect response through; after it, it reads the server's
// messages one header at a time: replies to our requests go to them and
// never to go-zookeeper, notifications are reported to the Gate's Notify
// first, and, when the connection resumed the armed session, the first
// reply that records a zxid is held for SetWatches. go-zookeeper reads the
// connect response with exact lengths, so counting its bytes finds its end.
func (c *conn) Read(p []byte) (int, error) {
	if c.handshakeRem > 0 || len(c.handshake) < 4 {
		if by := c.handshakeBy.Load(); by != 0 {
			if zk := c.zkReadBy.Load(); zk != 0 && zk < by {
				by = zk
			}
			c.Conn.SetReadDeadline(time.Unix(0, by))
		}
		n, err := c.Conn.Read(p)
		c.countHandshake(p[:n])
		return n, err
	}
	if !c.decided {
		c.decided = true
		c.open = !c.gate.resumesArmed()
	}
	for {
		switch {
		case len(c.ahead) > 0:
			n := copy(p, c.ahead)
			c.ahead = c.ahead[n:]
			return n, nil
		case c.rest > 0:
			n, err := c.Conn.Read(p[:min(int64(len(p)), c.rest)])
			c.rest -= int64(n)
			return n, err
		}
		if err := c.readMessage(); err != nil {
			if l := c.link.Load(); l != nil {
				l.end() // the stream is broken: no reply of ours will come
			}
			return 0, err
		}
	}
}

// readMessage reads the next message's length and header off the
// connection and takes it (a reply of ours), or queues it for go-zookeeper
// (holding it back while it records a zxid and SetWatches is not written).
func (c *conn) readMessage() error {
	hdr := make([]byte, replyHeaderLen)
	if _, err := io.ReadFull(c.Conn, hdr); err != nil {
		return err
	}
	size := int64(binary.BigEndian.Uint32(hdr[:4]))
	xid := int32(binary.BigEndian.Uint32(hdr[4:8]))
	zxid := int64(binary.BigEndian.Uint64(hdr[8:16]))
	rest := max(size-(replyHeaderLen-4), 0)
	if xid == xidNotification || isOwnXid(xid) {
		// Small messages, read whole: a notification's path, a reply of ours.
		msg := make([]byte, replyHeaderLen+rest)
		copy(msg, hdr)
		if _, err := io.ReadFull(c.Conn, msg[replyHeaderLen:]); err != nil {
			return err
		}
		if isOwnXid(xid) {
			if l := c.link.Load(); l != nil {
				l.deliver(msg[4:])
			}
			return nil
		}
		if n, ok := parseNotification(msg[replyHeaderLen:]); ok {
			c.gate.fireOneShot(n)
			if c.gate.hooks.Notify != nil {
				c.gate.hooks.Notify(n)
			}
		}
		c.ahead = msg
		return nil
	}
	if !c.open && xid >= 0 && zxid > 0 {
		if err := c.awaitSetWatches(); err != nil {
			return err
		}
		c.open = true
	}
	if xid >= 0 {
		c.replied(xid, zxid)
		c.gate.oneShotReplied(xid, int32(binary.BigEndian.Uint32(hdr[16:20])))
	}
	c.ahead, c.rest = hdr, rest
	return nil
}

// awaitSetWatches waits until SetWatches is written (nil), the Gate is
// retired or ReadHold passes (an error that ends the connection).
func (c *conn) awaitSetWatches() error {
	t := time.NewTimer(ReadHold)
	defer t.Stop()
	select {
	case <-c.written:
		return nil
	case <-c.gate.retired:
		return ErrRetired
	case <-t.C:
		if l := c.link.Load(); l != nil {
			c.gate.holdTimedOut(l.session)
		}
		return errNoSetWatches
	}
}

// countHandshake follows the connect response; at its end, a response that
// grants a session makes the connection a Link.
func (c *conn) countHandshake(b []byte) {
	for len(b) > 0 {
		if len(c.handshake) < 4 {
			k := min(4-len(c.handshake), len(b))
			c.handshake = append(c.handshake, b[:k]...)
			b = b[k:]
			if len(c.handshake) == 4 {
				c.handshakeRem = int64(binary.BigEndian.Uint32(c.handshake))
			}
			continue
		}
		k := min(int64(len(b)), c.handshakeRem)
		c.handshake = append(c.handshake, b[:k]...)
		c.handshakeRem -= k
		b = b[k:]
		if c.handshakeRem == 0 {
			c.established()
			return
		}
	}
}

// boundHandshake bounds the wait for the connect response by half the
// session timeout go-zookeeper asked for (at least minHandshakeWait), where
// go-zookeeper waits ten times its receive timeout: a server that accepted
// the connection while it was starting and never answers it (ZooKeeper 3.8
// does that) would otherwise hold a client off a server that is up by then
// until its session is given up.
func (c *conn) boundHandshake(sessionTimeout time.Duration) {
	c.handshakeBy.Store(time.Now().Add(max(sessionTimeout/2, minHandshakeWait)).UnixNano())
}
