package framework_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/clock"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// recorder keeps every state a listener was told, in order.
type recorder struct {
	mu     sync.Mutex
	states []framework.ConnectionState
}

func (r *recorder) add(s framework.ConnectionState) {
	r.mu.Lock()
	r.states = append(r.states, s)
	r.mu.Unlock()
}

func (r *recorder) get() []framework.ConnectionState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.states)
}

// await waits until the recorder holds at least len(want) states and checks them.
func (r *recorder) await(t *testing.T, want ...framework.ConnectionState) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for len(r.get()) < len(want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for states %s; got %s", testWait, statesString(want), statesString(r.get()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := r.get(); !slices.Equal(got, want) {
		t.Fatalf("states = %s, want %s", statesString(got), statesString(want))
	}
}

// quiet checks that no further state arrives during d.
func (r *recorder) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	before := r.get()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if got := r.get(); len(got) != len(before) {
			t.Fatalf("unexpected states after %s: %s", statesString(before), statesString(got[len(before):]))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func statesString(states []framework.ConnectionState) string {
	s := "["
	for i, st := range states {
		if i > 0 {
			s += " "
		}
		s += st.String()
	}
	return s + "]"
}

// startRecorded starts a client whose states are recorded from the first one on.
func startRecorded(t *testing.T, connect string, opts ...framework.Option) (*framework.Client, *recorder) {
	t.Helper()
	c := newUnstartedClient(t, connect, opts...)
	r := &recorder{}
	c.Listen(r.add)
	if err := c.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := c.BlockUntilConnected(testCtx(t)); err != nil {
		t.Fatalf("BlockUntilConnected: %v", err)
	}
	r.await(t, framework.Connected)
	return c, r
}

const (
	C = framework.Connected
	S = framework.Suspended
	R = framework.Reconnected
	L = framework.Lost
)

func TestStateStrings(t *testing.T) {
	want := map[framework.ConnectionState]string{C: "CONNECTED", S: "SUSPENDED", R: "RECONNECTED", L: "LOST", framework.ReadOnly: "READ_ONLY"}
	for st, name := range want {
		if st.String() != name {
			t.Errorf("%d.String() = %q, want %q", int(st), st.String(), name)
		}
		if got := st.IsConnected(); got != (st == C || st == R || st == framework.ReadOnly) {
			t.Errorf("%v.IsConnected() = %v", st, got)
		}
	}
	for _, tc := range []struct {
		p     framework.ErrorPolicy
		state framework.ConnectionState
		want  bool
	}{
		{framework.StandardErrorPolicy, S, true}, {framework.StandardErrorPolicy, L, true},
		{framework.StandardErrorPolicy, R, false}, {framework.SessionErrorPolicy, S, false},
		{framework.SessionErrorPolicy, L, true}, {framework.SessionErrorPolicy, C, false},
	} {
		if got := tc.p.IsErrorState(tc.state); got != tc.want {
			t.Errorf("%v.IsErrorState(%v) = %v, want %v", tc.p, tc.state, got, tc.want)
		}
	}
}

// A connection loss without expiry: SUSPENDED then RECONNECTED on the same session.
func TestSeverGivesSuspendedThenReconnected(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	// go-zookeeper waits a second before dialing its only server again.
	c, r := startRecorded(t, p.Addr(), framework.WithSessionTimeout(3*time.Second))
	sid := c.SessionID()
	ctx := testCtx(t)
	eph, err := c.Create(ctx, testRoot(t), nil, framework.WithMode(framework.Ephemeral))
	if err != nil {
		t.Fatal(err)
	}

	p.Sever()
	r.await(t, C, S, R)
	if got := c.SessionID(); got != sid {
		t.Fatalf("SessionID = %#x after a reconnect, want %#x", got, sid)
	}
	if st, err := c.Exists(ctx, eph); err != nil || st == nil || st.EphemeralOwner != sid {
		t.Fatalf("ephemeral node after reconnect: %+v, %v", st, err)
	}
	if c.State() != R {
		t.Fatalf("State() = %v, want RECONNECTED", c.State())
	}
	r.quiet(t, 2*testSessionTimeout)
}

// A pause shorter than the session timeout: SUSPENDED then RECONNECTED.
func TestShortPauseKeepsSession(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithSessionTimeout(3*time.Second))
	sid := c.SessionID()

	p.Pause()
	// go-zookeeper notices silence after 2/3 of the session timeout.
	eventually(t, "SUSPENDED", func() bool { return c.State() == S })
	p.Resume()
	r.await(t, C, S, R)
	if got := c.SessionID(); got != sid {
		t.Fatalf("SessionID = %#x, want %#x", got, sid)
	}
}

// A partition longer than the session timeout: the client cannot hear the server's
// verdict, so it decides (simulated expiry): SUSPENDED, LOST while still partitioned,
// then RECONNECTED on a new session once the partition heals, and nothing more.
func TestLongPauseSimulatesExpiry(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr())
	sid := c.SessionID()
	watcher := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	eph, err := c.Create(ctx, testRoot(t), nil, framework.WithMode(framework.Ephemeral))
	if err != nil {
		t.Fatal(err)
	}

	p.Pause()
	r.await(t, C, S, L) // while still paused: no server verdict could arrive
	p.Resume()
	r.await(t, C, S, L, R)
	if got := c.SessionID(); got == sid || got == 0 {
		t.Fatalf("SessionID after LOST = %#x, want a new session (old %#x)", got, sid)
	}
	// The old session is gone for good: its ephemeral node disappears.
	eventually(t, "the old session's ephemeral node to vanish", func() bool {
		st, err := watcher.Exists(ctx, eph)
		return err == nil && st == nil
	})
	if _, err := c.Create(ctx, eph, nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatalf("create on the new session: %v", err)
	}
	r.quiet(t, 2*testSessionTimeout)
}

// With the simulation off, LOST comes from the server's verdict after the
// partition; the expired session's value is done by then and the new
// session's is open.
func TestServerReportedExpiry(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr(), framework.WithSimulatedSessionExpirationPercent(0))
	sid := c.SessionID()
	s := c.Session()
	watcher := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	eph, err := c.Create(ctx, testRoot(t), nil, framework.WithMode(framework.Ephemeral))
	if err != nil {
		t.Fatal(err)
	}

	p.Pause()
	r.await(t, C, S)
	eventually(t, "the server to expire the session", func() bool {
		st, err := watcher.Exists(ctx, eph)
		return err == nil && st == nil
	})
	if got := r.get(); !slices.Equal(got, []framework.ConnectionState{C, S}) {
		t.Fatalf("states before the verdict = %s, want [CONNECTED SUSPENDED]", statesString(got))
	}
	p.Resume()
	r.await(t, C, S, L, R)
	if got := c.SessionID(); got == sid {
		t.Fatalf("SessionID still %#x after expiry", got)
	}
	if !isDone(s) || s.IsCurrent() {
		t.Fatalf("expired session 0x%x after LOST: done %v, current %v; want done", s.ID(), isDone(s), s.IsCurrent())
	}
	if next := c.Session(); next.ID() == s.ID() || next.ID() != c.SessionID() || isDone(next) {
		t.Fatalf("the new session 0x%x (SessionID 0x%x, done %v): want a new, open session", next.ID(), c.SessionID(), isDone(next))
	}
	r.quiet(t, 2*testSessionTimeout)
}

// A server restart within the session timeout keeps the session and its ephemeral nodes.
func TestServerRestartKeepsSession(t *testing.T) {
	srv := zktest.StartServer(t)
	c, r := startRecorded(t, srv.ConnectString(), framework.WithSessionTimeout(20*time.Second))
	sid := c.SessionID()
	ctx := testCtx(t)
	eph, err := c.Create(ctx, "/eph", nil, framework.WithMode(framework.Ephemeral))
	if err != nil {
		t.Fatal(err)
	}

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	r.await(t, C, S)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	r.await(t, C, S, R)
	if got := c.SessionID(); got != sid {
		t.Fatalf("SessionID = %#x after restart, want %#x", got, sid)
	}
	st, err := c.Exists(ctx, eph)
	if err != nil || st == nil || st.EphemeralOwner != sid {
		t.Fatalf("ephemeral node after restart: %+v, %v", st, err)
	}
}

// Listeners see every transition in order, even while one of them is blocked and a
// thousand transitions queue up behind it; operations go on meanwhile.
func TestListenersNeverDropOrStall(t *testing.T) {
	const cycles = 500 // each gives SUSPENDED and RECONNECTED
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	var dials atomic.Int64
	dialer := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		dials.Add(1)
		return net.DialTimeout(network, addr, timeout)
	}
	// The address twice: go-zookeeper waits a second before dialing a list it has
	// gone through, so one entry would make each reconnect take a second.
	c, r := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithDialer(dialer),
		framework.WithSessionTimeout(10*time.Second))
	sid := c.SessionID()

	release := make(chan struct{})
	var blocked atomic.Bool
	slow := &recorder{}
	c.Listen(func(s framework.ConnectionState) {
		if blocked.CompareAndSwap(false, true) {
			<-release
		}
		slow.add(s)
	})

	ctx := testCtx(t)
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < cycles; i++ {
		n, rewatched := dials.Load(), p.RequestCount(zktest.OpSetWatches)
		p.Sever()
		// Reconnected once go-zookeeper has set the watches again (the
		// client's sentinel watch makes sure there are some): see rewatch.go.
		for dials.Load() == n || c.Conn().State() != zk.StateHasSession || p.RequestCount(zktest.OpSetWatches) == rewatched {
			if time.Now().After(deadline) {
				t.Fatalf("cycle %d: no reconnect before the deadline", i)
			}
			time.Sleep(time.Millisecond)
		}
		if i == cycles/2 {
			// The blocked listener must not stall operations.
			if _, err := c.Create(ctx, testRoot(t), nil, framework.WithMode(framework.Ephemeral)); err != nil {
				t.Fatalf("create while a listener is blocked: %v", err)
			}
		}
	}
	if !blocked.Load() {
		t.Fatal("the slow listener was never called")
	}
	close(release)

	want := []framework.ConnectionState{C}
	for i := 0; i < cycles; i++ {
		want = append(want, S, R)
	}
	r.await(t, want...)
	// The slow listener registered after CONNECTED, so it sees the rest.
	slow.await(t, want[1:]...)
	if got := c.SessionID(); got != sid {
		t.Fatalf("SessionID changed during the cycles: %#x, want %#x", got, sid)
	}
}

func TestListenStop(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr(), framework.WithSessionTimeout(3*time.Second))
	var calls atomic.Int64
	stop := c.Listen(func(framework.ConnectionState) { calls.Add(1) })
	stop()
	stop() // idempotent
	var (
		mu        sync.Mutex
		self      func()
		selfCalls atomic.Int64
	)
	mu.Lock()
	self = c.Listen(func(framework.ConnectionState) {
		selfCalls.Add(1)
		mu.Lock()
		defer mu.Unlock()
		self() // stopping from within the callback is allowed
	})
	mu.Unlock()
	p.Sever()
	r.await(t, C, S, R)
	if n := calls.Load(); n != 0 {
		t.Fatalf("stopped listener called %d times", n)
	}
	if n := selfCalls.Load(); n != 1 {
		t.Fatalf("self-stopping listener called %d times, want 1", n)
	}
}

func TestLifecycle(t *testing.T) {
	c := newUnstartedClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	if _, err := c.Exists(ctx, "/"); !errors.Is(err, framework.ErrNotStarted) {
		t.Fatalf("Exists before Start: %v, want ErrNotStarted", err)
	}
	if err := c.BlockUntilConnected(ctx); !errors.Is(err, framework.ErrNotStarted) {
		t.Fatalf("BlockUntilConnected before Start: %v, want ErrNotStarted", err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err == nil {
		t.Fatal("second Start succeeded")
	}
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if got := c.SessionTimeout(); got != testSessionTimeout {
		t.Fatalf("SessionTimeout = %v, want the negotiated %v", got, testSessionTimeout)
	}
	if _, err := c.Exists(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := c.Exists(ctx, "/"); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Exists after Close: %v, want ErrClosed", err)
	}
	if err := c.Start(); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Start after Close: %v, want ErrClosed", err)
	}
}

// An operation waits for a connection only up to the connection timeout; then the
// retry policy decides, and a cancelled ctx returns at once.
func TestOperationWaitsForConnection(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr(), framework.WithSimulatedSessionExpirationPercent(0),
		framework.WithConnectionTimeout(300*time.Millisecond))
	p.Pause()
	defer p.Resume()
	eventually(t, "SUSPENDED", func() bool { return c.State() == S })

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Exists(ctx, "/")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("Exists with a short ctx: %v after %v", err, time.Since(start))
	}
	// testPolicy allows 5 retries of 100 ms, each after a 300 ms wait.
	_, err = c.Exists(testCtx(t), "/")
	if !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("Exists while partitioned: %v, want a connection loss", err)
	}
	p.Resume()
	r.await(t, C, S, L, R) // the server's verdict once the partition heals
}

// A dropped connection is counted before go-zookeeper reconnects and sets the
// session's watches again, so a watch event that fires on the new connection
// is always seen with the count already changed.
func TestConnectionLossesCountedBeforeWatchesComeBack(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c, r := startRecorded(t, p.Addr(), framework.WithSessionTimeout(5*time.Second))
	ctx := testCtx(t)
	path := testRoot(t)
	if n := c.ConnectionLosses(); n != 0 {
		t.Fatalf("ConnectionLosses() = %d on a fresh connection, want 0", n)
	}
	st, events, err := c.ExistsW(ctx, path)
	if err != nil || st != nil {
		t.Fatalf("ExistsW(%s) = %v, %v; want an absent node watched", path, st, err)
	}

	// While the client cannot reach the server, the watched node appears.
	p.Pause()
	p.Sever()
	r.await(t, C, S)
	other := newClient(t, srv.ConnectString())
	if _, err := other.Create(ctx, path, nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	p.Resume()
	select {
	case ev := <-events:
		if ev.Type != zk.EventNodeCreated {
			t.Fatalf("watch event %v, want NodeCreated", ev.Type)
		}
		if n := c.ConnectionLosses(); n != 1 {
			t.Fatalf("ConnectionLosses() = %d when the watch fired after the reconnect, want 1", n)
		}
	case <-time.After(4 * testSessionTimeout):
		t.Fatal("the watch did not fire after the reconnect")
	}
	r.await(t, C, S, R)
}

// opRecorder is a dialer whose connections record the opcode of every
// request go-zookeeper writes, one list per connection.
type opRecorder struct {
	mu    sync.Mutex
	conns [][]int32
}

func (o *opRecorder) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.conns = append(o.conns, nil)
	return &recordingConn{Conn: c, o: o, i: len(o.conns) - 1}, nil
}

func (o *opRecorder) ops(i int) []int32 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.conns[i])
}

type recordingConn struct {
	net.Conn
	o *opRecorder
	i int
}

func (c *recordingConn) Write(p []byte) (int, error) {
	if len(p) >= 12 && int32(binary.BigEndian.Uint32(p[4:8])) > 0 { // requests, not the handshake
		c.o.mu.Lock()
		c.o.conns[c.i] = append(c.o.conns[c.i], int32(binary.BigEndian.Uint32(p[8:12])))
		c.o.mu.Unlock()
	}
	return c.Conn.Write(p)
}

// After a reconnect within the session, no operation goes out before
// go-zookeeper has set the session's watches again (SetWatches): go-zookeeper
// would otherwise race on the zxid it sets them from (rewatch.go). The
// client's own sentinel watch makes sure there is a SetWatches to wait for.
func TestReconnectRunsOperationsOnlyAfterWatchesAreSetAgain(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	var rec opRecorder
	c, r := startRecorded(t, p.Addr(), framework.WithDialer(rec.dial), framework.WithSessionTimeout(5*time.Second))
	ctx := testCtx(t)

	p.Pause()
	p.Sever()
	r.await(t, C, S)
	done := make(chan error, 1)
	go func() { _, err := c.Exists(ctx, "/"); done <- err }()
	p.Resume()
	if err := <-done; err != nil {
		t.Fatalf("Exists after the reconnect: %v", err)
	}
	r.await(t, C, S, R)

	ops := rec.ops(1) // the second connection
	const opExists, opSetWatches = 3, 101
	setWatches, exists := slices.Index(ops, opSetWatches), slices.Index(ops, opExists)
	if setWatches < 0 || exists < 0 || exists < setWatches {
		t.Fatalf("requests on the reconnected connection: %v; want SetWatches (%d) before the Exists (%d)", ops, opSetWatches, opExists)
	}
}

// lostTimes returns a channel that receives the time on clk of every LOST the client reports.
func lostTimes(c *framework.Client, clk clock.Clock) <-chan time.Time {
	ch := make(chan time.Time, 8)
	c.Listen(func(s framework.ConnectionState) {
		if s == L {
			select {
			case ch <- clk.Now():
			default:
			}
		}
	})
	return ch
}

// On a reconnect go-zookeeper may report HasSession and then at once
// Disconnected, before the client is ready again (its receive and send loops
// race). The state is still SUSPENDED, and the partition that follows must
// still end in LOST. The server confirmed the session at HasSession, so the
// simulated expiry counts from that second loss; a further Disconnected
// without a session in between (go-zookeeper reports one after every failed
// handshake) does not postpone it.
func TestDisconnectBeforeReadyAgainRearmsSimulatedExpiry(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	// The simulated expiry runs on a clock the test moves, so that when it
	// counts from is exact rather than measured.
	clk := clock.NewFake(time.Now())
	c, r := startRecorded(t, p.Addr(), framework.WithSessionTimeout(2*time.Second), framework.WithClock(clk))
	sid := c.SessionID()
	timeout := c.SessionTimeout()
	lost := lostTimes(c, clk)

	p.Pause()
	r.await(t, C, S)
	first := clk.Now()
	awaitExpiryAt(t, clk, first.Add(timeout))
	// A third of the timeout passes, so that counting from the first loss
	// would report LOST a third of a timeout sooner than counting from the
	// second.
	clk.Advance(timeout / 3)
	second := clk.Now()
	framework.InjectSessionEvent(c, zk.StateHasSession)
	framework.InjectSessionEvent(c, zk.StateDisconnected)
	awaitExpiryAt(t, clk, second.Add(timeout))
	clk.Advance(timeout / 2)
	framework.InjectSessionEvent(c, zk.StateDisconnected)
	clk.Advance(second.Add(timeout).Sub(clk.Now()) - time.Millisecond)
	if got := clk.Timers(); len(got) != 1 || !got[0].Equal(second.Add(timeout)) {
		t.Fatalf("a millisecond before the session timeout since the second loss the expiry runs at %v; want it at %v", got, second.Add(timeout))
	}
	clk.Advance(time.Millisecond)
	select {
	case at := <-lost:
		if d := at.Sub(second); d != timeout {
			t.Fatalf("LOST %v after the second connection loss, want the session timeout %v", d, timeout)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no LOST within 20s of the simulated expiry's time; states %s", statesString(r.get()))
	}
	r.await(t, C, S, L)
	p.Resume()
	r.await(t, C, S, L, R)
	if got := c.SessionID(); got == sid || got == 0 {
		t.Fatalf("SessionID after LOST = %#x, want a new session (old %#x)", got, sid)
	}
}

// awaitExpiryAt waits until the client's only timer on clk is a simulated
// expiry due at at.
func awaitExpiryAt(t *testing.T, clk *clock.Fake, at time.Time) {
	t.Helper()
	eventually(t, fmt.Sprintf("the simulated expiry armed for %v", at), func() bool {
		timers := clk.Timers()
		return len(timers) == 1 && timers[0].Equal(at)
	})
}

// Curator reports nothing before the first connection: a connection loss
// then starts no simulated expiry, and an expiry (of a session that was
// established but never ready, so nothing ran on it) is not reported as
// LOST. The first ready session is CONNECTED.
func TestNoLostBeforeFirstConnection(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	p.Pause()
	c := newUnstartedClient(t, p.Addr())
	r := &recorder{}
	c.Listen(r.add)
	if err := c.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	conn := c.Conn()
	framework.InjectSessionEvent(c, zk.StateDisconnected)
	r.quiet(t, 2*testSessionTimeout) // the simulated expiry would have fired
	if c.Conn() != conn {
		t.Fatal("the connection was replaced before the first connection")
	}
	framework.InjectSessionEvent(c, zk.StateExpired)
	framework.InjectSessionEvent(c, zk.StateDisconnected)
	r.quiet(t, 2*testSessionTimeout)
	p.Resume()
	if err := c.BlockUntilConnected(testCtx(t)); err != nil {
		t.Fatalf("BlockUntilConnected: %v", err)
	}
	r.await(t, C)
	r.quiet(t, 2*testSessionTimeout)
}
