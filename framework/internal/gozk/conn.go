package gozk

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
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
)

var (
	// ErrRetired is what a dial through a retired Gate returns, and a read
	// of a reply held back for SetWatches when the Gate is retired first.
	ErrRetired = errors.New("framework: the session of this connection was given up")
	// errNoSetWatches ends a connection whose reply was held back for
	// ReadHold without go-zookeeper writing SetWatches: delivering the reply
	// then would race with go-zookeeper's read of the zxid, so go-zookeeper
	// gets a broken connection instead and connects again.
	errNoSetWatches = errors.New("framework: no SetWatches request on a resumed connection")
)

// Gate is what the connections of one go-zookeeper Conn share: the Conn,
// once zk.Connect has returned it, the session in which a watch is certain
// to be set again after a reconnect, and whether the Conn was given up.
type Gate struct {
	session atomic.Pointer[func() int64] // the Conn's SessionID
	armed   atomic.Int64
	retired chan struct{} // closed by Retire
	retire  sync.Once

	mu    sync.Mutex
	conns map[*conn]struct{} // open connections, until Shut; nil after it
	shut  bool
}

// NewGate returns a Gate for one go-zookeeper Conn.
func NewGate() *Gate {
	return &Gate{retired: make(chan struct{}), conns: make(map[*conn]struct{})}
}

// SetConn records the go-zookeeper connection whose dials go through g.
func (g *Gate) SetConn(c *zk.Conn) {
	id := c.SessionID
	g.session.Store(&id)
}

// Arm records that go-zookeeper holds a watch in session id, so that it
// writes SetWatches on every connection that resumes that session.
func (g *Gate) Arm(id int64) { g.armed.Store(id) }

// Retire makes every later dial fail with ErrRetired, and so does a read
// whose reply is held back for SetWatches.
func (g *Gate) Retire() {
	g.retire.Do(func() { close(g.retired) })
}

// Shut retires g and closes its open connections. go-zookeeper's Close sends
// closeSession and waits at most a second for the reply, but its receive loop
// then waits for its read deadline (two thirds of the session timeout) on a
// server that went silent; after Close, Shut ends that wait at once.
func (g *Gate) Shut() {
	g.Retire()
	g.mu.Lock()
	conns := g.conns
	g.conns, g.shut = nil, true
	g.mu.Unlock()
	for c := range conns {
		c.Conn.Close()
	}
}

// track records c as open; it reports false, recording nothing, once g is shut.
func (g *Gate) track(c *conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		return false
	}
	g.conns[c] = struct{}{}
	return true
}

func (g *Gate) untrack(c *conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.conns, c)
}

// Dialer wraps dial so that each connection calls rewatched once when
// go-zookeeper writes SetWatches on it and, on a connection that resumes the
// armed session, holds back the first reply that records a zxid until then.
// A reply still held when the Gate is retired or after ReadHold is never
// delivered: the connection fails instead. go-zookeeper reads the zxid for SetWatches before it
// queues the request, so from then on its receive loop may record newer
// ones: the hold orders the two, even for requests that were queued inside
// go-zookeeper when the previous connection dropped.
func (g *Gate) Dialer(dial zk.Dialer, rewatched func()) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		select {
		case <-g.retired:
			return nil, ErrRetired
		default:
		}
		nc, err := dial(network, address, timeout)
		if err != nil {
			return nil, err
		}
		c := &conn{Conn: nc, gate: g, report: rewatched, written: make(chan struct{})}
		if !g.track(c) {
			nc.Close()
			return nil, ErrRetired
		}
		return c, nil
	}
}

// Close closes the connection and forgets it.
func (c *conn) Close() error {
	c.gate.untrack(c)
	return c.Conn.Close()
}

// resumesArmed reports whether go-zookeeper's connection is in the armed
// session, so that SetWatches will come.
func (g *Gate) resumesArmed() bool {
	id := g.session.Load()
	return id != nil && (*id)() != 0 && (*id)() == g.armed.Load()
}

// conn is one connection through a Gate. The bytes go-zookeeper reads are
// the bytes the server sent; only when it gets them changes.
type conn struct {
	net.Conn
	gate    *Gate
	once    sync.Once
	report  func()
	written chan struct{} // closed once SetWatches is written

	// Reads of the connect response (go-zookeeper's handshake, on its own
	// goroutine, before the receive loop starts).
	handshake    [4]byte
	handshakeLen int   // bytes of the length prefix read so far
	handshakeRem int64 // bytes of the response body still to come

	// Reads of the receive loop, one goroutine.
	decided bool   // whether replies are held was decided
	open    bool   // replies pass unexamined
	ahead   []byte // bytes read off the connection, not yet delivered
	rest    int64  // bytes of the current reply still to pass before the next header
}

// Write sees whole requests: go-zookeeper writes each one, length prefix,
// xid and opcode first, in a single call. The connect request, which has no
// xid or opcode, starts with a zero protocol version where a request's xid
// is positive.
func (c *conn) Write(p []byte) (int, error) {
	if len(p) >= 12 && int32(binary.BigEndian.Uint32(p[4:8])) > 0 &&
		int32(binary.BigEndian.Uint32(p[8:12])) == opSetWatches {
		c.once.Do(func() {
			close(c.written)
			c.report()
		})
	}
	return c.Conn.Write(p)
}

// Read passes the connect response through; after it, when the connection
// resumed the armed session, replies are examined one header at a time until
// one that records a zxid has been held for SetWatches. go-zookeeper reads
// the connect response with exact lengths, so counting its bytes finds its
// end.
func (c *conn) Read(p []byte) (int, error) {
	if c.handshakeLen < len(c.handshake) || c.handshakeRem > 0 {
		n, err := c.Conn.Read(p)
		c.countHandshake(p[:n])
		return n, err
	}
	if !c.decided {
		c.decided = true
		c.open = !c.gate.resumesArmed()
	}
	switch {
	case len(c.ahead) > 0:
		n := copy(p, c.ahead)
		c.ahead = c.ahead[n:]
		return n, nil
	case c.open:
		return c.Conn.Read(p)
	case c.rest > 0:
		n, err := c.Conn.Read(p[:min(int64(len(p)), c.rest)])
		c.rest -= int64(n)
		return n, err
	}
	return c.readHeader(p)
}

// readHeader reads the next reply's length and header off the connection,
// holds it back while it records a zxid and SetWatches is not written, and
// starts delivering it.
func (c *conn) readHeader(p []byte) (int, error) {
	hdr := make([]byte, replyHeaderLen)
	n, err := io.ReadFull(c.Conn, hdr)
	if err != nil {
		c.open = true // deliver what came, then the error again
		if n == 0 {
			return 0, err
		}
		c.ahead = hdr[:n]
		return c.Read(p)
	}
	size := int64(binary.BigEndian.Uint32(hdr[:4]))
	xid := int32(binary.BigEndian.Uint32(hdr[4:8]))
	zxid := int64(binary.BigEndian.Uint64(hdr[8:16]))
	c.rest = max(size-(replyHeaderLen-4), 0)
	if xid >= 0 && zxid > 0 {
		if err := c.awaitSetWatches(); err != nil {
			return 0, err
		}
		c.open = true
	}
	c.ahead = hdr
	return c.Read(p)
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
		return errNoSetWatches
	}
}

func (c *conn) countHandshake(b []byte) {
	for len(b) > 0 {
		if c.handshakeLen < len(c.handshake) {
			k := copy(c.handshake[c.handshakeLen:], b)
			c.handshakeLen += k
			b = b[k:]
			if c.handshakeLen == len(c.handshake) {
				c.handshakeRem = int64(binary.BigEndian.Uint32(c.handshake[:]))
			}
			continue
		}
		k := min(int64(len(b)), c.handshakeRem)
		c.handshakeRem -= k
		b = b[k:]
		if c.handshakeRem == 0 {
			return
		}
	}
}
