package framework_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestSASLPersistentWatchWaitsForTheExchange: after a reconnect within the
// session, a persistent watch asked for while the connection is still
// authenticating goes out only after the SASL exchange, so that a server
// that requires SASL does not close the session for a request sent before
// it. The proxy is paused at the exchange's first token until the watch's
// request comes (or 1.5 s), longer than the client waits for SetWatches.
func TestSASLPersistentWatchWaitsForTheExchange(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers), zktest.WithSASLRequired())
	p := zktest.StartProxy(t, srv.Addr())
	log := newSASLLog(t)
	// A session of 9 s gives an exchange 3 s.
	c, rec := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithLogger(log.logger()),
		framework.WithSessionTimeout(9*time.Second),
		framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)))
	sid := c.SessionID()
	ctx := testCtx(t)

	var mu sync.Mutex
	var armed, paused bool
	var order []zktest.Op // the requests of the new connection, as the proxy read them
	p.Trace(func(f zktest.Frame) {
		if f.FromServer || f.Ping() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !armed {
			return
		}
		order = append(order, f.Op)
		switch {
		case f.Op == opSASL && !paused: // held with the latency, paused before it is forwarded
			paused = true
			go p.Pause()
			time.AfterFunc(1500*time.Millisecond, p.Resume)
		case f.Op == opAddWatch:
			go p.Resume()
		}
	})
	p.SetLatency(50 * time.Millisecond)
	mu.Lock()
	armed = true
	mu.Unlock()
	p.Sever()
	w, err := c.AddWatch(ctx, "/sasl-order", framework.WatchPersistent)
	if err != nil {
		t.Fatalf("AddWatch across the reconnect: %v", err)
	}
	defer w.Close(ctx)
	rec.await(t, C, S, R)
	if _, err := c.Exists(ctx, "/"); err != nil {
		t.Fatalf("Exists after the reconnect: %v", err)
	}
	if got := c.SessionID(); got != sid {
		t.Fatalf("SessionID = %#x after the reconnect, want %#x: the server closed the session", got, sid)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) < 3 || order[0] != opSASL || order[1] != opSASL {
		t.Fatalf("requests of the new connection: %v; want the two SASL tokens first", order)
	}
	// The window the test is about: the client called itself reconnected
	// (it waited for SetWatches no longer) while the exchange was held.
	text := log.String()
	if r, a := strings.Index(text, `"RECONNECTED"`), strings.LastIndex(text, "SASL authenticated"); r < 0 || a < r {
		t.Fatalf("the exchange ended before the client reported RECONNECTED; the watch had no window to go out early")
	}
}

// opSASL is the opcode of a SASL token's request.
const opSASL zktest.Op = 102
