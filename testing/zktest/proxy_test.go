package zktest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// startProxy puts a Proxy in front of s for the test.
func startProxy(t *testing.T, s *Server) *Proxy {
	t.Helper()
	p, err := NewProxy(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("close proxy: %v", err)
		}
	})
	return p
}

func TestProxyCountsRequests(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	c := connect(t, p.Addr(), 10*time.Second)

	p.ResetCounts()
	if _, err := c.Create("/counted", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Children("/"); err != nil {
		t.Fatal(err)
	}
	for op, want := range map[Op]int64{OpCreate: 1, OpGetChildren2: 1, OpGetData: 0, OpExists: 0, OpDelete: 0} {
		if got := p.RequestCount(op); got != want {
			t.Errorf("RequestCount(%v) = %d, want %d", op, got, want)
		}
	}
	p.ResetCounts()
	if got := p.RequestCount(OpCreate); got != 0 {
		t.Errorf("RequestCount(create) after ResetCounts = %d, want 0", got)
	}

	// Four-letter commands are not ZooKeeper frames; they pass through as bytes.
	if reply, err := fourLetter(context.Background(), p.Addr(), "ruok"); err != nil || reply != "imok" {
		t.Errorf("ruok through the proxy = %q, %v; want imok", reply, err)
	}
}

// The proxy counts the watch notifications it forwards, and all requests
// but pings together.
func TestProxyCountsNotificationsAndRequestTotal(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	watcher := connect(t, p.Addr(), 10*time.Second)
	writer := connect(t, s.Addr(), 10*time.Second)

	p.ResetCounts()
	_, _, events, err := watcher.ExistsW("/notified")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Create("/notified", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if ev.Type != zk.EventNodeCreated {
			t.Fatalf("event = %v, want NodeCreated", ev.Type)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10 s")
	}
	if got := p.NotificationCount(); got != 1 {
		t.Errorf("NotificationCount = %d, want 1", got)
	}
	if _, _, err := watcher.Get("/notified"); err != nil {
		t.Fatal(err)
	}
	if got := p.RequestTotal(); got != 2 {
		t.Errorf("RequestTotal = %d, want 2 (exists and getData)", got)
	}
	p.ResetCounts()
	if n, r := p.NotificationCount(), p.RequestTotal(); n != 0 || r != 0 {
		t.Errorf("after ResetCounts: %d notifications, %d requests; want 0 and 0", n, r)
	}
}

// The server's CPU time is readable and grows with the work it does.
func TestServerCPUTimeGrowsWithWork(t *testing.T) {
	s := StartServer(t)
	if s.PID() == 0 {
		t.Fatal("PID = 0 for a running server")
	}
	before, err := s.CPUTime()
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s.Addr(), 10*time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		if _, err := c.Create("/busy", make([]byte, 1024), zk.FlagSequence, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
		after, err := s.CPUTime()
		if err != nil {
			t.Fatal(err)
		}
		if after > before {
			return
		}
		if i == 100000 || time.Now().After(deadline) {
			t.Fatalf("CPU time stayed %v over %d creates", before, i+1)
		}
	}
}

func TestProxyPauseHoldsRequestsUntilResume(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	c := connect(t, p.Addr(), 10*time.Second)
	direct := connect(t, s.Addr(), 10*time.Second)

	p.ResetCounts()
	p.Pause()
	done := make(chan error, 1)
	go func() {
		_, err := c.Create("/held", []byte("x"), 0, zk.WorldACL(zk.PermAll))
		done <- err
	}()
	await(t, 5*time.Second, "the proxy holds the create", func() bool { return p.RequestCount(OpCreate) == 1 })
	select {
	case err := <-done:
		t.Fatalf("create completed while paused: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	if exists(t, direct, "/held") {
		t.Fatal("the server got the create while the proxy was paused")
	}

	p.Resume()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("create after resume: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("create still blocked 5s after resume")
	}
	if !exists(t, direct, "/held") {
		t.Fatal("/held missing after the create completed")
	}
}

func TestProxySeverMakesClientReconnect(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	c := connect(t, p.Addr(), 10*time.Second)
	session := c.SessionID()

	p.Sever()
	c.awaitState(t, zk.StateDisconnected, 5*time.Second)
	c.awaitState(t, zk.StateHasSession, 10*time.Second)
	if got := c.SessionID(); got != session {
		t.Errorf("session %#x after reconnecting, want the same %#x", got, session)
	}
	if _, err := c.Create("/after-sever", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Errorf("create after reconnecting: %v", err)
	}
}

func TestProxyLoseNextReplyLosesExactlyOne(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	c := connect(t, p.Addr(), 10*time.Second)
	direct := connect(t, s.Addr(), 10*time.Second)
	acl := zk.WorldACL(zk.PermAll)

	p.LoseNextReply(OpCreate)
	if _, _, err := c.Exists("/"); err != nil {
		t.Fatalf("exists is not armed, yet: %v", err)
	}
	if _, err := c.Create("/lost", nil, 0, acl); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("create with its reply lost: %v; want zk.ErrConnectionClosed", err)
	}
	if got := p.LostReplies(); got != 1 {
		t.Fatalf("LostReplies = %d, want 1", got)
	}
	if !exists(t, direct, "/lost") {
		t.Fatal("the server did not create /lost")
	}

	c.awaitState(t, zk.StateHasSession, 10*time.Second)
	if _, err := c.Create("/second", nil, 0, acl); err != nil {
		t.Fatalf("second create: %v", err)
	}
	if got := p.LostReplies(); got != 1 {
		t.Errorf("LostReplies after a normal create = %d, want 1", got)
	}
}

func TestProxyPauseLongerThanSessionExpiresIt(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	c := connect(t, p.Addr(), 800*time.Millisecond)
	direct := connect(t, s.Addr(), 10*time.Second)
	if _, err := c.Create("/owned", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	session := c.SessionID()

	p.Pause()
	start := time.Now()
	await(t, 10*time.Second, "the server expires the paused session", func() bool { return !exists(t, direct, "/owned") })
	t.Logf("session expired %v into the pause", time.Since(start))
	p.Resume()

	c.awaitState(t, zk.StateExpired, 10*time.Second)
	c.awaitState(t, zk.StateHasSession, 10*time.Second)
	if got := c.SessionID(); got == session || got == 0 {
		t.Errorf("session %#x after expiry; want a new one, not %#x", got, session)
	}
	if exists(t, c, "/owned") {
		t.Error("the expired session's ephemeral node is still there")
	}
}

func TestProxyCloseWhilePaused(t *testing.T) {
	s := StartServer(t)
	p, err := NewProxy(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, p.Addr(), 10*time.Second)
	p.Pause()
	done := make(chan error, 1)
	go func() {
		_, err := c.Create("/never", nil, 0, zk.WorldACL(zk.PermAll))
		done <- err
	}()
	await(t, 5*time.Second, "the proxy holds the create", func() bool { return p.RequestCount(OpCreate) == 1 })
	if err := p.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("create succeeded through a closed proxy")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("create still blocked 5s after the proxy closed")
	}
	if err := p.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

func TestNewProxyRejectsBadTarget(t *testing.T) {
	if _, err := NewProxy("no-port"); err == nil || !strings.Contains(err.Error(), `"no-port"`) {
		t.Errorf("NewProxy(no-port) error = %v; want one naming the target", err)
	}
}

func TestOpString(t *testing.T) {
	for op, want := range map[Op]string{OpCreate: "create", OpGetChildren2: "getChildren2", OpClose: "closeSession", Op(999): "Op(999)"} {
		if got := op.String(); got != want {
			t.Errorf("Op(%d).String() = %q, want %q", int32(op), got, want)
		}
	}
}

func TestProxyLatencyDelaysEveryRoundTrip(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	c := connect(t, p.Addr(), 10*time.Second)
	const oneWay = 25 * time.Millisecond
	p.SetLatency(oneWay)

	start := time.Now()
	if _, _, err := c.Exists("/"); err != nil {
		t.Fatal(err)
	}
	if rtt := time.Since(start); rtt < 2*oneWay {
		t.Errorf("a round trip took %v with %v of latency each way; want at least %v", rtt, oneWay, 2*oneWay)
	}

	// Requests in flight together are delayed together, not one after another.
	const inFlight = 8
	errs := make(chan error, inFlight)
	start = time.Now()
	for range inFlight {
		go func() { _, _, err := c.Exists("/"); errs <- err }()
	}
	for range inFlight {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 2*oneWay || took >= inFlight*oneWay {
		t.Errorf("%d concurrent round trips took %v; want at least %v and well under %v", inFlight, took, 2*oneWay, inFlight*oneWay)
	}

	p.SetLatency(0)
	start = time.Now()
	if _, _, err := c.Exists("/"); err != nil {
		t.Fatal(err)
	}
	if rtt := time.Since(start); rtt >= 2*oneWay {
		t.Errorf("a round trip took %v after SetLatency(0); want under %v", rtt, 2*oneWay)
	}
}

// Trace reports each request with its opcode, its reply with the same xid
// and the watch notification, all under the session the server gave the
// connection, in the order read.
func TestProxyTraceReportsFramesOfTheSession(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	watcher := connect(t, p.Addr(), 10*time.Second)
	writer := connect(t, s.Addr(), 10*time.Second)

	frames := make(chan Frame, 64)
	p.Trace(func(f Frame) {
		if !f.Ping() { // pings come when they come
			frames <- f
		}
	})
	_, _, events, err := watcher.ExistsW("/traced")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Create("/traced", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-events:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10 s")
	}
	p.Trace(nil)
	close(frames)
	var got []Frame
	for f := range frames {
		got = append(got, f)
	}
	if len(got) != 3 {
		t.Fatalf("traced %d frames, want 3 (exists, its reply, the notification): %+v", len(got), got)
	}
	req, reply, notif := got[0], got[1], got[2]
	if req.FromServer || req.Op != OpExists {
		t.Errorf("first frame %+v, want the exists request", req)
	}
	if !reply.FromServer || reply.Xid != req.Xid || reply.Notification() {
		t.Errorf("second frame %+v, want the reply to xid %d", reply, req.Xid)
	}
	if !notif.Notification() {
		t.Errorf("third frame %+v, want a watch notification", notif)
	}
	for _, f := range got {
		if f.Session != watcher.SessionID() {
			t.Errorf("frame %+v has session %#x, want the watcher's %#x", f, f.Session, watcher.SessionID())
		}
	}
	if !(req.Read.Before(reply.Read) || req.Read.Equal(reply.Read)) || reply.Read.After(notif.Read) {
		t.Errorf("frames read out of order: %v, %v, %v", req.Read, reply.Read, notif.Read)
	}
}

// ClientEnds counts a connection its client closes, at once even while the
// proxy is paused, and not one the proxy severs.
func TestProxyClientEndsCountsOnlyWhatClientsClose(t *testing.T) {
	s := StartServer(t)
	p := startProxy(t, s)
	severed := connect(t, p.Addr(), 10*time.Second)
	p.Sever()
	Eventually(t, 10*time.Second, "the severed client is connected again", func() bool {
		return severed.State() == zk.StateHasSession
	})
	if n := p.ClientEnds(); n != 0 {
		t.Fatalf("ClientEnds = %d after a sever, want 0", n)
	}
	closing := connect(t, p.Addr(), 10*time.Second)
	p.Pause()
	defer p.Resume()
	closing.Close()
	Eventually(t, 10*time.Second, "the closed connection is counted while paused", func() bool { return p.ClientEnds() == 1 })
}
