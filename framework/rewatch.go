package framework

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
)

// After a reconnect within the session, go-zookeeper v1.0.4 sets the
// session's watches again (sendSetWatches) from the zxid it last saw, which
// it reads while the new connection's receive loop may already be writing it
// for the replies to requests sent at once: a data race (go-zookeeper/zk
// PR #35) and a relative zxid that may skip changes. The client therefore
// runs no operation on a reconnected connection until go-zookeeper has
// written its SetWatches request. So that there always is one, the client
// keeps a watch of its own on sentinelPath, whose data never changes. A
// request already queued inside go-zookeeper when the connection dropped
// still goes out first on the next one, so the connection itself also holds
// back every reply that would record a zxid until SetWatches is written
// (rewatchConn.Read).
const (
	sentinelPath = "/zookeeper"
	// rewatchWait bounds the wait for a SetWatches request, should none come.
	rewatchWait = time.Second
	// rewatchReadWait bounds how long a reply that records a zxid is held
	// back for it. Replies that record none (authentication, pings, watch
	// events) pass at once, so the bound only has to outlast go-zookeeper's
	// own steps between the handshake and SetWatches on a starved machine;
	// the reply has been read off the socket by then, so go-zookeeper's read
	// deadline does not run while it waits.
	rewatchReadWait = 2 * time.Second
	// sentinelAttempts bounds the failures to arm the sentinel in a session.
	sentinelAttempts = 3
	// opSetWatches is ZooKeeper's opcode of a SetWatches request.
	opSetWatches = 101
	// replyHeaderLen is a reply's length prefix and header: xid, zxid, err.
	replyHeaderLen = 4 + 4 + 8 + 4
)

// errGivenUp is what a connection of a session the client gave up gets
// instead of a new dial: that session must not be resumed.
var errGivenUp = errors.New("framework: the session of this connection was given up")

// rewatchGate is what the connections of one generation share: its
// go-zookeeper connection, once zk.Connect has returned it, the session in
// which our sentinel watch is armed, and whether the client gave the
// generation up.
type rewatchGate struct {
	conn    atomic.Pointer[zk.Conn]
	armed   atomic.Int64
	retired atomic.Bool
}

// rewatchConn is a connection that reports the first SetWatches request
// go-zookeeper writes on it and, on a connection that resumes a session
// whose watches go-zookeeper will set again, holds back the first reply that
// records a zxid until that request is written. go-zookeeper reads the zxid
// for SetWatches before it queues the request, so from then on its receive
// loop may record newer zxids: the gate orders the two, which closes the data
// race (and keeps the relative zxid from skipping changes) even for requests
// that were already queued inside go-zookeeper when the previous connection
// dropped. The bytes go-zookeeper reads are the bytes the server sent; only
// when it gets them changes.
type rewatchConn struct {
	net.Conn
	gate    *rewatchGate
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
func (c *rewatchConn) Write(p []byte) (int, error) {
	if len(p) >= 12 && int32(binary.BigEndian.Uint32(p[4:8])) > 0 &&
		int32(binary.BigEndian.Uint32(p[8:12])) == opSetWatches {
		c.once.Do(func() {
			close(c.written)
			c.report()
		})
	}
	return c.Conn.Write(p)
}

// Read passes the connect response through; after it, replies are examined
// one header at a time until SetWatches is written, when the resumed session
// is the one whose sentinel watch go-zookeeper holds: only then is a
// SetWatches request certain to come. go-zookeeper reads the connect
// response with exact lengths, so counting its bytes finds its end.
func (c *rewatchConn) Read(p []byte) (int, error) {
	if c.handshakeLen < len(c.handshake) || c.handshakeRem > 0 {
		n, err := c.Conn.Read(p)
		c.countHandshake(p[:n])
		return n, err
	}
	if !c.decided {
		c.decided = true
		c.open = !c.resumesArmedSession()
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
// holds it back while it records a zxid and SetWatches is not written (at
// most rewatchReadWait), and starts delivering it.
func (c *rewatchConn) readHeader(p []byte) (int, error) {
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
		c.awaitSetWatches()
		c.open = true
	}
	c.ahead = hdr
	return c.Read(p)
}

func (c *rewatchConn) countHandshake(b []byte) {
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

// resumesArmedSession reports whether this connection resumed the session
// in which the sentinel watch is armed, so that SetWatches will come.
func (c *rewatchConn) resumesArmedSession() bool {
	conn := c.gate.conn.Load()
	return conn != nil && conn.SessionID() != 0 && conn.SessionID() == c.gate.armed.Load()
}

func (c *rewatchConn) awaitSetWatches() {
	t := time.NewTimer(rewatchReadWait)
	defer t.Stop()
	select {
	case <-c.written:
	case <-t.C:
	}
}

// rewatchDialer wraps dial so that every connection of generation gen
// reports its SetWatches request to the state machine and waits for it as
// gate says.
func (k *core) rewatchDialer(dial zk.Dialer, gen uint64, gate *rewatchGate) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		if gate.retired.Load() {
			return nil, errGivenUp
		}
		c, err := dial(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &rewatchConn{
			Conn:    c,
			gate:    gate,
			written: make(chan struct{}),
			report:  func() { k.events.push(loopEvent{kind: evRewatched, gen: gen}) },
		}, nil
	}
}

// sessionUpLocked goes on from a session established on the connection
// (sameSession: one it had before a reconnect) towards readiness: once
// go-zookeeper has set the watches again, and once the sentinel is armed.
func (k *core) sessionUpLocked(sameSession bool) {
	s := &k.sess
	if sameSession {
		s.rewatching = true
		gen, epoch := s.gen, s.rewatchEpoch
		s.rewatchTimer = time.AfterFunc(rewatchWait, func() {
			k.events.push(loopEvent{kind: evRewatched, gen: gen, epoch: epoch, timedOut: true})
		})
		return
	}
	s.sentinel = false // go-zookeeper dropped the old session's watches
	s.sentinelFailures = 0
	k.sentinelOrReadyLocked()
}

// rewatchedLocked handles go-zookeeper's SetWatches request, or the end of
// the wait for it.
func (k *core) rewatchedLocked(ev loopEvent) {
	s := &k.sess
	if !s.rewatching || (ev.timedOut && ev.epoch != s.rewatchEpoch) {
		return
	}
	if ev.timedOut {
		k.log.Debug("no SetWatches request after a reconnect; going on", zap.Duration("waited", rewatchWait))
	}
	k.stopRewatchLocked()
	if s.hasSession {
		k.sentinelOrReadyLocked()
	}
}

func (k *core) stopRewatchLocked() {
	s := &k.sess
	s.rewatching = false
	s.rewatchEpoch++
	if s.rewatchTimer != nil {
		s.rewatchTimer.Stop()
		s.rewatchTimer = nil
	}
}

// sentinelOrReadyLocked arms the sentinel watch if this session lacks it,
// and otherwise goes on to authentication and readiness.
func (k *core) sentinelOrReadyLocked() {
	s := &k.sess
	if s.sentinel {
		k.authOrReadyLocked()
		return
	}
	if !s.sentinelRunning {
		s.sentinelRunning = true
		conn, gen, sid := s.conn, s.gen, s.lastSessionID
		k.spawnLocked(func() {
			_, _, _, err := conn.ExistsW(sentinelPath)
			k.events.push(loopEvent{kind: evSentinel, gen: gen, err: err, sessionID: sid})
		})
	}
}

// sentinelDoneLocked handles the outcome of arming the sentinel watch. An
// outcome that belongs to an earlier session, or an error (the connection
// went, or is going), leaves the sentinel unarmed: it is armed again at
// once if the session is up, else on the next session event. After
// sentinelAttempts failures in one session the client goes on without it,
// waiting out rewatchWait after each reconnect.
func (k *core) sentinelDoneLocked(ev loopEvent) {
	s := &k.sess
	s.sentinelRunning = false
	switch {
	case ev.sessionID != s.lastSessionID:
	case ev.err == nil:
		s.sentinel = true
		s.gate.armed.Store(ev.sessionID)
	default:
		s.sentinelFailures++
		if s.sentinelFailures >= sentinelAttempts {
			k.log.Warn("cannot watch the sentinel node; reconnects will wait for watches a little longer",
				zap.String("path", sentinelPath), zap.Error(ev.err))
			s.sentinel = true // do not try again in this session
		}
	}
	if s.hasSession && !s.rewatching {
		k.sentinelOrReadyLocked()
	}
}
