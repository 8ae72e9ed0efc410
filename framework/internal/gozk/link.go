package gozk

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Own requests take their xids from [-2^31+1, -2^30], a range go-zookeeper
// never uses: its xids count up from 1 masked to 31 bits, so they are never
// negative, and it sends no negative xid but a ping's -2. ZooKeeper echoes a
// request's xid in its reply whatever its sign (FinalRequestProcessor
// replies with ReplyHeader(request.cxid, ...)); it gives meaning only to -1
// (notification), -2 (ping), -4 (auth) and -8 (the Java client's
// SetWatches), all far from this range. TestServerEchoesOwnXids sends both
// ends of the range to a real server. Should a reply of ours ever reach
// go-zookeeper, it logs a negative xid and drops it; it never mistakes it
// for a reply of its own.
const (
	ownXidTop  int32 = -1 << 30
	ownXidSpan       = 1 << 30 // xids in the range, taken in turn
)

// isOwnXid reports whether xid is in the range of our own requests.
func isOwnXid(xid int32) bool { return xid <= ownXidTop && xid != -1<<31 }

// Reply is a server's reply to a request of ours.
type Reply struct {
	Zxid int64
	Body []byte // what follows the reply header; empty on an error
}

// ErrLinkClosed is what a request whose connection ended returns; the error
// matches zk.ErrConnectionClosed too: a connection loss, whose outcome is
// unknown.
var ErrLinkClosed = errors.New("framework: the connection of the request ended")

// connectionLoss is an error that matches a sentinel of ours and
// zk.ErrConnectionClosed, read as one line.
type connectionLoss struct{ ours error }

func (e connectionLoss) Error() string {
	return e.ours.Error() + " (" + zk.ErrConnectionClosed.Error() + ")"
}
func (e connectionLoss) Unwrap() []error { return []error{e.ours, zk.ErrConnectionClosed} }

// Link is one connection of a Gate once its session is established:
// requests of our own go out on it between go-zookeeper's, and their
// replies are taken off the stream before go-zookeeper reads it.
type Link struct {
	c       *conn
	session int64
	timeout time.Duration // the session timeout the server granted

	mu      sync.Mutex
	pending map[int32]func(Reply, error)
	ended   error         // set once, when the connection ends
	done    chan struct{} // closed when the connection ends
}

func newLink(c *conn, session int64, timeout time.Duration) *Link {
	return &Link{c: c, session: session, timeout: timeout,
		pending: make(map[int32]func(Reply, error)), done: make(chan struct{})}
}

// SessionID returns the id of the session the connection established.
func (l *Link) SessionID() int64 { return l.session }

// Addr returns the address the connection was dialed to ("host:port"), as
// the connect string named it.
func (l *Link) Addr() string { return l.c.addr }

// Done returns a channel that is closed when the connection ends.
func (l *Link) Done() <-chan struct{} { return l.done }

// Ready waits until the connection's Exchange has ended well, so that a
// request sent after it goes out behind the Exchange's (a SASL
// authentication's): nil then; an error matching zk.ErrConnectionClosed
// when the connection ended first, or ctx's error.
func (l *Link) Ready(ctx context.Context) error {
	select {
	case <-l.c.released:
	case <-l.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-l.done: // a failed Exchange ends the connection before the release
		return l.endedErr()
	default:
		return nil
	}
}

func (l *Link) endedErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// Send writes a request whole between two of go-zookeeper's, and calls done
// exactly once: with the reply, on the goroutine that reads the connection
// (before the bytes after the reply are read, so that done orders the reply
// before the notifications that follow it), or with an error matching
// zk.ErrConnectionClosed when the connection ends first. done must not
// block; it may run before Send returns.
func (l *Link) Send(op int32, body []byte, done func(Reply, error)) {
	xid, ok := l.register(done)
	if !ok {
		return
	}
	if err := l.c.writeOwn(requestFrame(xid, op, body), l.timeout*2/3); err != nil {
		l.c.Close() // a partial frame would garble the stream: the connection ends
	}
}

// register records done as the request of a new xid; on an ended
// connection it calls done with the error and reports false.
func (l *Link) register(done func(Reply, error)) (int32, bool) {
	l.mu.Lock()
	if l.ended != nil {
		err := l.ended
		l.mu.Unlock()
		done(Reply{}, err)
		return 0, false
	}
	xid := l.c.gate.takeXid(func(x int32) bool { _, busy := l.pending[x]; return busy })
	l.pending[xid] = done
	l.mu.Unlock()
	return xid, true
}

// Do sends a request and waits for its reply, ctx or the end of the
// connection. A reply's error code comes back as the error (go-zookeeper's
// errors where it has one: zk.ErrNoNode, ...).
func (l *Link) Do(ctx context.Context, op int32, body []byte) (Reply, error) {
	type result struct {
		r   Reply
		err error
	}
	ch := make(chan result, 1)
	l.Send(op, body, func(r Reply, err error) { ch <- result{r, err} })
	select {
	case res := <-ch:
		return res.r, res.err
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

// deliver hands a reply frame of ours (header and body, without the length)
// to its request; it reports false for an xid no request waits for.
func (l *Link) deliver(frame []byte) bool {
	xid := int32(binary.BigEndian.Uint32(frame[0:4]))
	l.mu.Lock()
	done, ok := l.pending[xid]
	delete(l.pending, xid)
	l.mu.Unlock()
	if !ok {
		return false
	}
	r := Reply{Zxid: int64(binary.BigEndian.Uint64(frame[4:12]))}
	err := codeError(int32(binary.BigEndian.Uint32(frame[12:16])))
	if err == nil {
		r.Body = frame[16:]
	}
	done(r, err)
	return true
}

// end fails every pending request: the connection is gone.
func (l *Link) end() {
	l.mu.Lock()
	if l.ended != nil {
		l.mu.Unlock()
		return
	}
	l.ended = connectionLoss{ErrLinkClosed}
	pending := l.pending
	l.pending = nil
	close(l.done)
	l.mu.Unlock()
	for _, done := range pending {
		done(Reply{}, l.ended)
	}
}
