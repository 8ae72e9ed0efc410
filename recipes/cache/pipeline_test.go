package cache_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// The load sends the reads of a parent's children together, up to the
// bound, rather than one after the other, and a node's data read and listing
// together: with every reply held after the root's children were listed,
// both reads of that many children still reach the server, and no more.
func TestTreeCacheLoadReadsSiblingsConcurrently(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	const children = 3 * cache.ReadsInFlight
	for i := range children {
		_, err := admin.Create(ctx, fmt.Sprintf("/wide/n%03d", i), nil, framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	g := &replyGate{}
	c := zkclient.New(t, srv.ConnectString(), framework.WithDialer(g.dial), framework.WithSessionTimeout(10*time.Second))
	tc, err := cache.NewTreeCache(c, "/wide")
	must(t, err)
	defer tc.Close()
	defer g.release() // before the close: the load's reads end with their replies

	g.holdAfterListing()
	started := make(chan error, 1)
	go func() { started <- tc.Start(ctx) }()
	const bound = 2 * cache.ReadsInFlight // a data read and a listing a node
	zktest.Eventually(t, 10*time.Second, "the reads of the root's children", func() bool {
		return g.readsWhileHeld() >= bound
	})
	if n := g.readsWhileHeld(); n != bound {
		t.Errorf("%d reads in flight, want the bound, %d", n, bound)
	}
	g.release()
	must(t, <-started)
	if got := len(tc.Snapshot()); got != children+1 {
		t.Fatalf("the cache holds %d nodes after the load, want %d", got, children+1)
	}
}

// replyGate wraps the client's connections: once armed, it delivers the
// reply to the next children listing and then holds every later reply until
// released (but those to requests sent before that reply came, such as the
// listed node's data read, sent with its listing in either order), counting
// the reads the client sends meanwhile. It reads
// ZooKeeper's framing (a 4-byte length before each message; requests start
// with an xid and an opcode, replies with the xid) to tell them apart.
type replyGate struct {
	mu       sync.Mutex
	armed    bool
	listXid  int32 // the xid of the listing the gate waits for; 0 for none yet
	held     bool
	lastSent int32 // the xid of the last request sent
	before   int32 // lastSent when the hold began: replies to these pass
	reads    int   // reads sent while held
	released chan struct{}
	once     sync.Once
}

const (
	opGetData      = 4
	opGetChildren  = 8
	opGetChildren2 = 12
)

func (g *replyGate) holdAfterListing() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed = true
	g.released = make(chan struct{})
}

func (g *replyGate) release() {
	g.mu.Lock()
	ch := g.released
	g.mu.Unlock()
	if ch != nil {
		g.once.Do(func() { close(ch) })
	}
}

func (g *replyGate) readsWhileHeld() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reads
}

func (g *replyGate) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &gatedConn{Conn: conn, g: g, closed: make(chan struct{})}, nil
}

// sent notes a request the client wrote.
func (g *replyGate) sent(xid, op int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if xid > 0 {
		g.lastSent = xid
	}
	switch {
	case g.held && (op == opGetData || op == opGetChildren || op == opGetChildren2):
		g.reads++
	case g.armed && g.listXid == 0 && (op == opGetChildren || op == opGetChildren2):
		g.listXid = xid
	}
}

// received notes a reply delivered to the client and returns, while the
// gate holds, the channel that ends the hold.
func (g *replyGate) received(xid int32) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.armed && g.listXid != 0 && xid == g.listXid && !g.held {
		g.held, g.before = true, g.lastSent
	}
	if !g.held || xid > 0 && xid <= g.before {
		return nil
	}
	select {
	case <-g.released:
		return nil
	default:
		return g.released
	}
}

// gatedConn is one client connection through a replyGate.
type gatedConn struct {
	net.Conn
	g      *replyGate
	closed chan struct{}
	once   sync.Once

	wmu     sync.Mutex
	wbuf    []byte
	wframes int

	rbuf    []byte // the rest of the frame being delivered
	rframes int
	hold    <-chan struct{} // held before the next frame
}

func (c *gatedConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func (c *gatedConn) Write(b []byte) (int, error) {
	c.wmu.Lock()
	c.wbuf = append(c.wbuf, b...)
	for len(c.wbuf) >= 4 {
		n := int(binary.BigEndian.Uint32(c.wbuf))
		if len(c.wbuf) < 4+n {
			break
		}
		if c.wframes > 0 && n >= 8 { // the first frame is the connect request
			c.g.sent(int32(binary.BigEndian.Uint32(c.wbuf[4:])), int32(binary.BigEndian.Uint32(c.wbuf[8:])))
		}
		c.wframes++
		c.wbuf = c.wbuf[4+n:]
	}
	c.wmu.Unlock()
	return c.Conn.Write(b)
}

// Read delivers the server's frames whole, one after the other, waiting
// before the next while the gate holds. The client's read deadline does not
// count the hold: it timed the server, not the gate.
func (c *gatedConn) Read(b []byte) (int, error) {
	if len(c.rbuf) == 0 {
		if c.hold != nil {
			select {
			case <-c.hold:
			case <-c.closed:
				return 0, net.ErrClosed
			}
			c.hold = nil
			if err := c.Conn.SetReadDeadline(time.Time{}); err != nil {
				return 0, err
			}
		}
		var head [4]byte
		if _, err := io.ReadFull(c.Conn, head[:]); err != nil {
			return 0, err
		}
		body := make([]byte, binary.BigEndian.Uint32(head[:]))
		if _, err := io.ReadFull(c.Conn, body); err != nil {
			return 0, err
		}
		if c.rframes > 0 && len(body) >= 4 { // the first frame is the connect response
			c.hold = c.g.received(int32(binary.BigEndian.Uint32(body)))
		}
		c.rframes++
		c.rbuf = append(head[:], body...)
	}
	n := copy(b, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n, nil
}

// The readers of a load call the selector one at a time, so a selector
// that keeps state of its own needs no lock; it is asked about every child
// once.
func TestTreeCacheSelectorCallsNeverOverlap(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	const parents, children = 4, 2 * cache.ReadsInFlight
	must(t, buildTreeOf(ctx, c, "/sel", parents, children))
	asked := map[string]int{} // no lock: the cache promises calls never overlap
	var inside atomic.Int32
	var overlapped atomic.Bool
	tc, err := cache.NewTreeCache(c, "/sel", cache.WithSelector(func(p string) bool {
		if inside.Add(1) > 1 {
			overlapped.Store(true)
		}
		runtime.Gosched() // a window for another call to come in
		asked[p]++
		inside.Add(-1)
		return true
	}))
	must(t, err)
	defer tc.Close()
	must(t, tc.Start(ctx))
	if got, want := len(tc.Snapshot()), 1+parents*(1+children); got != want {
		t.Fatalf("the cache holds %d nodes, want %d", got, want)
	}
	if overlapped.Load() {
		t.Error("two calls of the selector overlapped")
	}
	for p, n := range asked {
		if n != 1 {
			t.Errorf("the selector was asked %d times about %s, want once", n, p)
		}
	}
	if got, want := len(asked), parents*(1+children); got != want {
		t.Errorf("the selector was asked about %d paths, want %d", got, want)
	}
}
