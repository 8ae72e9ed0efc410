package framework_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// opAddWatch is ZooKeeper's addWatch opcode, as the proxy counts it.
const opAddWatch = zktest.Op(106)

// watchedAfterReset waits for w's reset, then changes path through other and
// expects w to report it: the watch is set on the server again. Exactly one
// session watches path on srv.
func watchedAfterReset(t *testing.T, srv *zktest.Server, other *framework.Client, w *framework.PersistentWatch, path string) {
	t.Helper()
	watchedAfterResetWithin(t, srv, other, w, path, testWait)
}

// watchedAfterResetWithin is watchedAfterReset, the reset awaited for up to
// d.
func watchedAfterResetWithin(t *testing.T, srv *zktest.Server, other *framework.Client, w *framework.PersistentWatch, path string, d time.Duration) {
	t.Helper()
	awaitResetWithin(t, w, d)
	t.Logf("reset; changing %s", path)
	ctx := testCtx(t)
	st, err := other.Exists(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	want := created(path)
	if st == nil {
		_, err = other.Create(ctx, path, nil, framework.CreatingParentsIfNeeded())
	} else {
		want = changed(path)
		_, err = other.SetData(ctx, path, []byte("after the fault"), -1)
	}
	if err != nil {
		t.Fatal(err)
	}
	for ev := nextEvent(t, w); ev != want; ev = nextEvent(t, w) {
		t.Logf("event before the change: %+v", ev)
	}
	zktest.Eventually(t, testWait, "one session watching "+path, func() bool { return watchers(t, srv, path) == 1 })
}

// A cut connection: the watch is set again on the next connection of the
// same session, and the handle told.
func TestWatchResetAfterSever(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(3*time.Second)) // go-zookeeper redials after a second
	other := newClient(t, srv.ConnectString())
	path := testRoot(t)
	w := addWatch(t, c, path, framework.WatchPersistent)
	sid := c.SessionID()
	p.Sever()
	watchedAfterReset(t, srv, other, w, path)
	if c.SessionID() != sid {
		t.Fatalf("session %#x after a cut, want %#x", c.SessionID(), sid)
	}
}

// A paused proxy (a silent server): go-zookeeper gives the connection up,
// and the next one sets the watch again.
func TestWatchResetAfterPause(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c, r := startRecorded(t, p.Addr(), framework.WithSessionTimeout(4*time.Second))
	other := newClient(t, srv.ConnectString())
	path := testRoot(t) + "/tree"
	w := addWatch(t, c, testRoot(t), framework.WatchPersistentRecursive)
	p.Pause()
	r.await(t, C, S)
	p.Resume()
	watchedAfterRecursiveReset(t, srv, other, w, testRoot(t), path)
}

// watchedAfterRecursiveReset is watchedAfterReset for a recursive watch on
// root: a node created under it is reported.
func watchedAfterRecursiveReset(t *testing.T, srv *zktest.Server, other *framework.Client, w *framework.PersistentWatch, root, path string) {
	t.Helper()
	awaitReset(t, w)
	if _, err := other.Create(testCtx(t), path, nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	for ev := nextEvent(t, w); ev != created(path); ev = nextEvent(t, w) {
		t.Logf("event before the change: %+v", ev)
	}
	zktest.Eventually(t, testWait, "one session watching "+root, func() bool { return watchers(t, srv, root) == 1 })
}

// An expired session: the watch is set again in the new session.
func TestWatchResetAfterSessionExpiry(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c, r := startRecorded(t, p.Addr(), framework.WithSimulatedSessionExpirationPercent(0))
	other := newClient(t, srv.ConnectString())
	path := testRoot(t)
	w := addWatch(t, c, path, framework.WatchPersistent)
	sid := c.SessionID()
	eph, err := c.Create(testCtx(t), path+"-eph", nil, framework.WithMode(framework.Ephemeral))
	if err != nil {
		t.Fatal(err)
	}
	p.Pause()
	r.await(t, C, S)
	zktest.Eventually(t, testWait, "the server to expire the session", func() bool {
		st, err := other.Exists(testCtx(t), eph)
		return err == nil && st == nil
	})
	p.Resume()
	r.await(t, C, S, L, R)
	if c.SessionID() == sid {
		t.Fatal("the session did not change")
	}
	watchedAfterReset(t, srv, other, w, path)
}

// A server restart: the watch is set again. A redial that lands on the
// stopping server waits for go-zookeeper's handshake deadline, ten times its
// read timeout (two thirds of the session timeout), before it dials again:
// the reset is awaited for that long after the restart.
func TestWatchResetAfterServerRestart(t *testing.T) {
	srv := zktest.StartServer(t)
	session := srv.SessionOutlastingRestart(4 * time.Second)
	c := newClient(t, srv.ConnectString(), framework.WithSessionTimeout(session),
		framework.WithLogger(zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel))))
	path := "/restart"
	w := addWatch(t, c, path, framework.WatchPersistent)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	other := newClient(t, srv.ConnectString()) // connected to the restarted server
	watchedAfterResetWithin(t, srv, other, w, path, 10*session*2/3+testWait)
}

// The reply to addWatch itself is lost (the proxy cuts the connection in
// its place): AddWatch retries on the next connection and the watch works.
func TestWatchLostAddWatchReply(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(3*time.Second)) // go-zookeeper redials after a second
	other := newClient(t, srv.ConnectString())
	path := testRoot(t)
	p.LoseNextReply(opAddWatch)
	w := addWatch(t, c, path, framework.WatchPersistent)
	if p.LostReplies() != 1 {
		t.Fatalf("lost replies = %d, want 1", p.LostReplies())
	}
	if _, err := other.Create(testCtx(t), path, nil); err != nil {
		t.Fatal(err)
	}
	for ev := nextEvent(t, w); ev != created(path); ev = nextEvent(t, w) {
		if !ev.Reset {
			t.Fatalf("unexpected event %+v", ev)
		}
	}
	if n := watchers(t, srv, path); n != 1 {
		t.Fatalf("sessions watching %s = %d, want 1", path, n)
	}
}

// Close racing a reconnect: whichever comes first, no watch is left on the
// server and the handle's channel is closed.
func TestWatchCloseRacingReconnect(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(3*time.Second)) // go-zookeeper redials after a second
	path := testRoot(t)
	for i := range 10 {
		w, err := c.AddWatch(testCtx(t), path, framework.WatchPersistent)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				time.Sleep(time.Duration(i) * time.Millisecond) // vary the race
			}
			p.Sever()
		}()
		if err := w.Close(testCtx(t)); err != nil && !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("Close: %v", err)
		}
		wg.Wait()
		for range w.Events() {
		}
	}
	if err := c.BlockUntilConnected(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	// A request after the reconnect: any addWatch the exchange sent is done.
	if _, err := c.Exists(testCtx(t), "/"); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, testWait, "no session watching "+path, func() bool { return watchers(t, srv, path) == 0 })
}

// A server that does not know addWatch (older than 3.6) answers with
// UNIMPLEMENTED and closes the connection: AddWatch fails with
// ErrPersistentWatchUnsupported and the client connects again. The real
// server is made to answer so by an opcode it does not know in addWatch's
// place.
func TestWatchUnsupportedServer(t *testing.T) {
	framework.SendAddWatchAs(t, 9999)
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	_, err := c.AddWatch(testCtx(t), testRoot(t), framework.WatchPersistent)
	if !errors.Is(err, framework.ErrPersistentWatchUnsupported) {
		t.Fatalf("AddWatch = %v, want ErrPersistentWatchUnsupported", err)
	}
	if msg := err.Error(); strings.Count(msg, "framework: ") != 1 || !strings.Contains(msg, testRoot(t)) {
		t.Fatalf("error %q: want the package named once and the path", msg)
	}
	if _, err := c.Exists(testCtx(t), "/"); err != nil {
		t.Fatalf("a request after the refusal: %v", err)
	}
}

// The reply to removeWatches is lost (the proxy cuts the connection in its
// place): Close returns, since the watch went with the connection, and no
// watch is left on the server.
func TestWatchLostRemoveWatchesReply(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(3*time.Second))
	path := testRoot(t)
	w := addWatch(t, c, path, framework.WatchPersistentRecursive)
	p.LoseNextReply(zktest.Op(18)) // removeWatches
	if err := w.Close(testCtx(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if p.LostReplies() != 1 {
		t.Fatalf("lost replies = %d, want 1", p.LostReplies())
	}
	if err := c.BlockUntilConnected(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exists(testCtx(t), "/"); err != nil { // the next connection serves
		t.Fatal(err)
	}
	if n := watchers(t, srv, path); n != 0 {
		t.Fatalf("sessions watching %s = %d, want 0", path, n)
	}
}

// The last Close of a recursive watch leaves nothing of it on the server:
// no notification comes after it, not even of a deletion (ZooKeeper 3.6 to
// 3.8 keep a recursive watch in the children list too, which "wchp" does
// not show).
func TestWatchRecursiveCloseLeavesNoNotification(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr())
	other := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	w := addWatch(t, c, root, framework.WatchPersistentRecursive)
	if _, err := other.Create(ctx, root+"/x", nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, w, created(root), created(root+"/x"))
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	p.ResetCounts()
	if err := other.Delete(ctx, root, framework.DeletingChildrenIfNeeded()); err != nil {
		t.Fatal(err)
	}
	// A request behind: a notification sent before its reply has passed the proxy.
	if _, err := c.Exists(ctx, "/"); err != nil {
		t.Fatal(err)
	}
	if n := p.NotificationCount(); n != 0 {
		t.Fatalf("%d notifications after the recursive watch's Close, want 0", n)
	}
}
