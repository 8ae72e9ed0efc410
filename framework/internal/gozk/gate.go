package gozk

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

var (
	// ErrRetired is what a dial through a retired Gate returns, and a read
	// of a reply held back for SetWatches when the Gate is retired first.
	ErrRetired = errors.New("framework: the session of this connection was given up")
	// ErrNoLink is what Gate.Link returns while no connection has a
	// session; the error matches zk.ErrConnectionClosed too.
	ErrNoLink = errors.New("framework: no connection with a session")
)

// Exchange is run on each connection once its session is established and
// before go-zookeeper writes its first request on it: go-zookeeper's writes
// wait until it returns. Its ctx ends when the connection does, or after a
// third of the session timeout; an error ends the connection, and
// go-zookeeper connects again.
type Exchange func(ctx context.Context, l *Link) error

// Hooks are what a Gate's owner learns of its connections. Each may be nil.
type Hooks struct {
	// Exchange runs on each new connection before go-zookeeper's requests.
	Exchange Exchange
	// Notify is called with each watch notification, on the goroutine that
	// reads the connection and before go-zookeeper reads it; it must not
	// block.
	Notify func(Notification)
	// OneShot is called when go-zookeeper writes a request that sets a
	// one-shot watch on path (or SetWatches, once per path), on its
	// goroutine with the connection held: requests sent through b go out
	// right behind go-zookeeper's, and b.Changed tells their done whether
	// a change may have come between. It must not block.
	OneShot func(b *Behind, path string)
}

// Gate is what the connections of one go-zookeeper Conn share: the Conn,
// once zk.Connect has returned it, the session in which a watch is certain
// to be set again after a reconnect, whether the Conn was given up, the
// connection our own requests go on, and the xids they take.
type Gate struct {
	session atomic.Pointer[func() int64] // the Conn's SessionID
	armed   atomic.Int64
	retired chan struct{} // closed by Retire
	retire  sync.Once
	hooks   Hooks
	xids    atomic.Uint32 // own requests sent so far, for their xids

	mu    sync.Mutex
	conns map[*conn]struct{} // open connections, until Shut; nil after it
	shut  bool
	link  *Link // the connection with a session, if any
	// The one-shot watches go-zookeeper holds, by path (oneshot.go), in
	// session.
	oneShot        map[string]uint8
	oneShotAsked   map[int32]oneShotRequest // by go-zookeeper's xid, until the reply
	oneShotSession int64
	oneShotUnsure  int64 // a session whose one-shot watches no longer decide a hold
}

// NewGate returns a Gate for one go-zookeeper Conn.
func NewGate() *Gate { return NewGateHooks(Hooks{}) }

// NewGateHooks returns a Gate whose connections call hooks.
func NewGateHooks(hooks Hooks) *Gate {
	return &Gate{retired: make(chan struct{}), conns: make(map[*conn]struct{}),
		hooks: hooks}
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
		c.Close()
	}
}

// Link returns the connection that has a session now, or an error matching
// ErrNoLink and zk.ErrConnectionClosed when there is none. Its Exchange
// may still be under way: a request of the owner's waits for Link.Ready.
func (g *Gate) Link() (*Link, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.link == nil {
		return nil, connectionLoss{ErrNoLink}
	}
	return g.link, nil
}

// takeXid returns the next xid of our own range that busy does not report
// in use (after 2^30 requests the range starts over).
func (g *Gate) takeXid(busy func(int32) bool) int32 {
	for {
		n := g.xids.Add(1) - 1
		xid := ownXidTop - int32(n%ownXidSpan)
		if !busy(xid) {
			return xid
		}
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
	if g.link != nil && g.link.c == c {
		g.link = nil
	}
}

// linkUp makes l the connection our requests go on.
func (g *Gate) linkUp(l *Link) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, open := g.conns[l.c]; open {
		g.link = l
	}
	if l.session != g.oneShotSession { // go-zookeeper dropped the old session's watches
		g.oneShot, g.oneShotSession = nil, l.session
	}
}

// Dialer wraps dial so that each connection calls rewatched once when
// go-zookeeper writes SetWatches on it and, on a connection that resumes a
// session in which go-zookeeper holds a watch (resumesArmed), holds back the first reply that records a zxid until then.
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
		c := newConn(nc, address, g, rewatched)
		if !g.track(c) {
			nc.Close()
			return nil, ErrRetired
		}
		return c, nil
	}
}

// resumesArmed reports whether go-zookeeper's connection is in a session in
// which it holds a watch, so that SetWatches will come: the armed session,
// or one in which go-zookeeper was seen to be granted a one-shot watch that
// has not fired (the client's own watch is armed only after its session's
// first requests may have set others).
func (g *Gate) resumesArmed() bool {
	id := g.session.Load()
	if id == nil || (*id)() == 0 {
		return false
	}
	sid := (*id)()
	if sid == g.armed.Load() {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.oneShotSession == sid && len(g.oneShot) > 0 && g.oneShotUnsure != sid
}

// holdTimedOut records that a reply was held for ReadHold in session sid
// without SetWatches: unless sid is armed, what the Gate saw of
// go-zookeeper's one-shot watches no longer decides a hold in sid (a reply
// read off a connection that then broke before go-zookeeper took it would
// otherwise hold every later connection of the session).
func (g *Gate) holdTimedOut(sid int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.oneShotUnsure = sid
}
