package zktest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// Proxy is a TCP proxy on 127.0.0.1 in front of one ZooKeeper address that
// injects network faults into the connections passing through it. It reads
// ZooKeeper's framing, so it can count requests by opcode and lose the reply
// to a chosen request. A Proxy is safe for concurrent use.
type Proxy struct {
	target    string
	ln        net.Listener
	ctx       context.Context // ends with Close; bounds dials to the target
	cancel    context.CancelFunc
	wg        sync.WaitGroup // every goroutine of the proxy
	closeOnce sync.Once
	closeErr  error

	// Fixed at construction. raw copies bytes without reading ZooKeeper's
	// client framing (links between ensemble members); hello, when set,
	// reads the first message a client sends and returns what to forward
	// in its place.
	raw   bool
	hello func(r *bufio.Reader) ([]byte, error)

	mu      sync.Mutex
	changed *sync.Cond // broadcast whenever a waiting goroutine may proceed
	paused  bool
	closed  bool
	latency time.Duration // one way, added to every chunk forwarded
	links   map[*link]struct{}
	arming  *arming // the pending LoseNextReply, if any
	lost    int
	counts  map[Op]int64
	notifs  int64 // watch notifications forwarded to clients
	ends    int64 // connections their client closed
	trace   func(Frame)
}

// arming is one LoseNextReply call not yet bound to a request.
type arming struct {
	ops []Op // empty: any request but a ping
}

func (a *arming) matches(op Op) bool {
	if len(a.ops) == 0 {
		return op != OpPing
	}
	return slices.Contains(a.ops, op)
}

// NewProxy listens on a free port of 127.0.0.1 and forwards every
// connection it accepts to target, a "host:port" address.
func NewProxy(target string) (*Proxy, error) {
	return newProxy(target, false, nil)
}

// newProxy is NewProxy for a raw byte stream or one whose first message is
// rewritten by hello.
func newProxy(target string, raw bool, hello func(*bufio.Reader) ([]byte, error)) (*Proxy, error) {
	if _, _, err := net.SplitHostPort(target); err != nil {
		return nil, fmt.Errorf("zktest: proxy target %q: %w", target, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("zktest: proxy for %s: %w", target, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		target: target,
		ln:     ln,
		ctx:    ctx,
		cancel: cancel,
		links:  make(map[*link]struct{}),
		counts: make(map[Op]int64),
		raw:    raw,
		hello:  hello,
	}
	p.changed = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients connect to instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Pause stops forwarding in both directions, like a network partition:
// connections stay open, bytes (and connection ends) are held, in order, and
// new connections are accepted but not yet connected to the target.
func (p *Proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = true
	p.changed.Broadcast()
}

// Resume forwards again what Pause held, in order, on the connections that
// still exist.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = false
	p.changed.Broadcast()
}

// SetLatency delays everything the proxy forwards, in both directions, by
// oneWay from when it was read, so that a request's round trip takes at least
// twice that: a network farther away than 127.0.0.1. Delayed bytes keep their
// order, several requests can be in flight at once, and a Pause holds them
// as before. Zero, the default, forwards at once.
func (p *Proxy) SetLatency(oneWay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = max(oneWay, 0)
}

// Sever closes every current connection, on both sides, discarding what it
// held; clients see a connection loss. New connections are accepted.
func (p *Proxy) Sever() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for l := range p.links {
		l.closeLocked()
	}
}

// LoseNextReply arms the proxy once: the next client request whose opcode is
// one of ops (any request but a ping when ops is empty) is forwarded, and when
// the server's reply to it arrives, that reply is dropped and the connection
// is severed at that moment. The server did the work; the client saw a
// connection loss. A later call replaces an arming no request has matched yet.
// If the connection ends before the reply arrives, nothing is lost.
func (p *Proxy) LoseNextReply(ops ...Op) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.arming = &arming{ops: slices.Clone(ops)}
}

// LostReplies returns how many replies LoseNextReply has dropped.
func (p *Proxy) LostReplies() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lost
}

// RequestCount returns how many client requests with opcode op the proxy has
// read since it started or since ResetCounts. Connection handshakes are not
// requests; held requests count once read.
func (p *Proxy) RequestCount(op Op) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[op]
}

// RequestTotal returns how many client requests of any opcode but a ping the
// proxy has read since it started or since ResetCounts.
func (p *Proxy) RequestTotal() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var n int64
	for op, c := range p.counts {
		if op != OpPing {
			n += c
		}
	}
	return n
}

// NotificationCount returns how many watch notifications the server sent
// through the proxy since it started or since ResetCounts.
func (p *Proxy) NotificationCount() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.notifs
}

// ClientEnds returns how many connections their client has closed since the
// proxy started: read as it happens, even while the proxy is paused, so a
// test can await a client giving a connection up without waiting for the
// pause to end.
func (p *Proxy) ClientEnds() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ends
}

// ResetCounts sets every request and notification count to zero.
func (p *Proxy) ResetCounts() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.counts)
	p.notifs = 0
}

// StartProxy is NewProxy for tests: it fails tb if the proxy cannot start
// and closes it when tb's cleanups run (after those registered later, such as
// the clients that use it).
func StartProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	p, err := NewProxy(target)
	if err != nil {
		tb.Fatalf("zktest.NewProxy(%s): %v", target, err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p
}

// Close stops listening, closes every connection and returns once all of the
// proxy's goroutines have exited. It is idempotent.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		for l := range p.links {
			l.closeLocked()
		}
		p.mu.Unlock()
		p.cancel()
		p.closeErr = p.ln.Close()
		p.wg.Wait()
	})
	return p.closeErr
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		conn, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors or similar: try again shortly.
			select {
			case <-p.ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		l := &link{p: p, client: conn}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			conn.Close()
			return
		}
		p.links[l] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go l.run()
	}
}
