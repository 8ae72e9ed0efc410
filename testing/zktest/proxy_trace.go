package zktest

import (
	"encoding/binary"
	"time"
)

// Frame is one ZooKeeper frame a Proxy read, as its Trace reports it.
type Frame struct {
	// Session is the session of the connection, as the server's handshake
	// reply named it.
	Session int64
	// Read is when the proxy read the frame. It forwards the frame at Read
	// plus the latency then in force (SetLatency).
	Read time.Time
	// FromServer is true for replies and watch notifications, false for
	// requests.
	FromServer bool
	// Xid is the frame's xid: a request's and its reply's are the same, a
	// watch notification's is -1 and a ping's -2.
	Xid int32
	// Op is a request's opcode (0 for a reply or notification).
	Op Op
}

// Notification reports whether the frame is a watch notification.
func (f Frame) Notification() bool { return f.FromServer && f.Xid == xidNotification }

// Ping reports whether the frame is a ping or its reply.
func (f Frame) Ping() bool { return f.Xid == xidPing }

// Trace has fn called with every frame the proxy reads after a
// connection's handshake, in the order of each direction, until Trace is
// called again (nil stops it). fn is called with the proxy's lock held, so
// it must be quick and must not call the proxy.
func (p *Proxy) Trace(fn func(Frame)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trace = fn
}

// traceLocked reports a frame read after l's handshake; p.mu is held.
func (l *link) traceLocked(chunk []byte, fromServer bool) {
	if l.p.trace == nil || len(chunk) < 8 {
		return
	}
	f := Frame{Session: l.session, Read: time.Now(), FromServer: fromServer, Xid: int32(binary.BigEndian.Uint32(chunk[4:8]))}
	if !fromServer && len(chunk) >= 12 {
		f.Op = Op(int32(binary.BigEndian.Uint32(chunk[8:12])))
	}
	l.p.trace(f)
}

// noteHandshakeLocked takes the session id from the server's handshake
// reply (length, protocol version, timeout, session id); p.mu is held.
func (l *link) noteHandshakeLocked(chunk []byte) {
	if len(chunk) >= 20 {
		l.session = int64(binary.BigEndian.Uint64(chunk[12:20]))
	}
}
