package framework_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// oneShot waits for a one-shot watch's event.
func oneShot(t *testing.T, ch <-chan zk.Event, want zk.EventType) {
	t.Helper()
	select {
	case ev := <-ch:
		if ev.Type != want {
			t.Fatalf("one-shot watch: %+v, want %v", ev, want)
		}
	case <-time.After(testWait):
		t.Fatalf("the one-shot watch did not fire (%v) within %v", want, testWait)
	}
}

// nextChange returns w's next event that is no reset and compares it with
// want. A reset may come between: a change may have come between
// go-zookeeper's one-shot watch and the persistent watch set again behind it.
func nextChange(t *testing.T, w *framework.PersistentWatch, want framework.WatchEvent) {
	t.Helper()
	ev := nextEvent(t, w)
	for range 10 {
		if !ev.Reset {
			break
		}
		t.Log("a reset")
		ev = nextEvent(t, w)
	}
	if ev != want {
		t.Fatalf("event %+v, want %+v", ev, want)
	}
}

// A one-shot watch of go-zookeeper's and a persistent watch on one path:
// both fire; the persistent watch stays persistent after a one-shot watch is
// set where it is, and its Close leaves the one-shot watches there (data
// and children), which fire on the next changes.
func TestWatchKeepsOneShotWatch(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	other := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := c.Create(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	w := addWatch(t, c, path, framework.WatchPersistent)
	set := func(v string) {
		t.Helper()
		if _, err := other.SetData(ctx, path, []byte(v), -1); err != nil {
			t.Fatal(err)
		}
	}
	// reported makes a change with set until w reports one: a reset in its
	// place says the change may be missing, and the watch, set again,
	// reports the next.
	reported := func(v string) {
		t.Helper()
		set(v)
		for range 10 {
			ev := nextEvent(t, w)
			if !ev.Reset {
				if ev != changed(path) {
					t.Fatalf("event %+v, want %+v", ev, changed(path))
				}
				return
			}
			t.Log("a reset: the change again")
			set(v + " again")
		}
		t.Fatal("10 resets and no change reported")
	}
	for round := range 2 {
		_, _, ch, err := c.GetDataW(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		reported("one")
		oneShot(t, ch, zk.EventNodeDataChanged)
		reported("two") // only the persistent watch is left to report it
		t.Logf("round %d: both watches fired, the persistent one twice", round)
	}
	_, _, data, err := c.GetDataW(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, children, err := c.ChildrenW(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	set("three")
	oneShot(t, data, zk.EventNodeDataChanged)
	if _, err := other.Create(ctx, path+"/child", nil); err != nil {
		t.Fatal(err)
	}
	oneShot(t, children, zk.EventNodeChildrenChanged)
	if n := watchers(t, srv, path); n != 0 {
		t.Fatalf("sessions watching %s after both fired = %d, want 0", path, n)
	}
}

// A one-shot data watch of go-zookeeper's on the path of a recursive watch
// turns the server's recursive watch there into a one-shot one (ZooKeeper
// 3.6 to 3.8) until the client sets it again right behind: a change of a
// descendant in between is not sent. In each round a descendant changes
// while go-zookeeper sets its watch: the change is reported, or a reset
// says that it may be missing. A marker created after the round ends it.
func TestWatchRecursiveMissesNothingBesideOneShotWatches(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	other := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	child := root + "/child"
	if _, err := c.Create(ctx, child, nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	w := addWatch(t, c, root, framework.WatchPersistentRecursive)
	const rounds = 200
	missed, resets := 0, 0
	for round := range rounds {
		written := make(chan error, 1)
		go func() {
			_, err := other.SetData(ctx, child, []byte{byte(round)}, -1)
			written <- err
		}()
		if _, _, _, err := c.GetDataW(ctx, root); err != nil {
			t.Fatal(err)
		}
		if err := <-written; err != nil {
			t.Fatal(err)
		}
		// A request behind: the watch set again behind GetDataW is in place.
		if _, err := c.Exists(ctx, root); err != nil {
			t.Fatal(err)
		}
		marker := fmt.Sprintf("%s/m%d", root, round)
		if _, err := other.Create(ctx, marker, nil); err != nil {
			t.Fatal(err)
		}
		reported, reset := false, false
		for ev := nextEvent(t, w); ev != created(marker); ev = nextEvent(t, w) {
			reported = reported || ev == changed(child)
			reset = reset || ev.Reset
		}
		if reset {
			resets++
		}
		if !reported && !reset {
			missed++
			t.Errorf("round %d: the change of %s was not reported, and no reset came", round, child)
		}
	}
	t.Logf("%d rounds: %d changes missed without a reset, %d rounds with a reset", rounds, missed, resets)
}

// While nothing changes on the server, the one-shot watches set on the path
// of a recursive watch bring no reset: the server recorded no change
// between go-zookeeper's request and the watch set again behind it.
func TestWatchRecursiveNoResetBesideOneShotWatchesWhenNothingChanges(t *testing.T) {
	srv := zktest.StartServer(t) // no other test's writes
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := "/quiet"
	if _, err := c.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	w := addWatch(t, c, root, framework.WatchPersistentRecursive)
	for range 20 {
		if _, _, _, err := c.GetDataW(ctx, root); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Create(ctx, root+"/end", nil); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, w, created(root+"/end"))
}

// A persistent watch's Close racing go-zookeeper's one-shot watch on the
// same path never takes the one-shot watch with it: it fires on the next
// change.
func TestWatchCloseRacingOneShotWatchKeepsIt(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	other := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := c.Create(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	for round := range 50 {
		w, err := c.AddWatch(ctx, path, framework.WatchPersistent)
		if err != nil {
			t.Fatal(err)
		}
		closed := make(chan error, 1)
		go func() { closed <- w.Close(ctx) }()
		_, _, ch, err := c.GetDataW(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if _, err := other.SetData(ctx, path, []byte{byte(round)}, -1); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-ch:
			if ev.Type != zk.EventNodeDataChanged {
				t.Fatalf("round %d: one-shot watch: %+v", round, ev)
			}
		case <-time.After(testWait):
			t.Fatalf("round %d: the one-shot watch set while the persistent watch was removed never fired", round)
		}
	}
	if n := watchers(t, srv, path); n != 0 {
		t.Fatalf("sessions watching %s = %d, want 0", path, n)
	}
}

// One-shot watches of go-zookeeper's (as caches and locks set them) on the
// descendants of a recursive watch leave it whole: every change under it is
// reported, with no reset, while they are set.
func TestWatchRecursiveBesideOneShotWatchesOnDescendants(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	other := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	child, sibling := root+"/child", root+"/sibling"
	for _, p := range []string{child, sibling} {
		if _, err := c.Create(ctx, p, nil, framework.CreatingParentsIfNeeded()); err != nil {
			t.Fatal(err)
		}
	}
	w := addWatch(t, c, root, framework.WatchPersistentRecursive)
	const rounds = 50
	for round := range rounds {
		written := make(chan error, 1)
		go func() {
			_, err := other.SetData(ctx, sibling, []byte{byte(round)}, -1)
			written <- err
		}()
		if _, _, _, err := c.GetDataW(ctx, child); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := c.ChildrenW(ctx, child); err != nil {
			t.Fatal(err)
		}
		if err := <-written; err != nil {
			t.Fatal(err)
		}
		expectEvents(t, w, changed(sibling))
	}
	if _, err := other.SetData(ctx, child, []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, w, changed(child))
}

// A one-shot watch go-zookeeper asked for on a missing node, which the
// server did not set (getData and getChildren set none there), is not set
// by the persistent watch's Close either: no watch is left on the server.
func TestWatchCloseSetsNoOneShotWatchTheServerRefused(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, _, _, err := c.GetDataW(ctx, path); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("GetDataW of a missing node = %v, want ErrNoNode", err)
	}
	if _, _, _, err := c.ChildrenW(ctx, path); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("ChildrenW of a missing node = %v, want ErrNoNode", err)
	}
	w, err := c.AddWatch(ctx, path, framework.WatchPersistent)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := watchers(t, srv, path); n != 0 {
		t.Fatalf("sessions watching %s after Close = %d, want 0", path, n)
	}
}

// A persistent watch's Close while the notification that fires
// go-zookeeper's one-shot watch on its path is on its way (the reply to
// the first removeWatches has left the server, which then applies a
// change) leaves no watch on the server: the one-shot watch it would set
// again has fired.
func TestWatchCloseWhileOneShotWatchFiresLeavesNoWatch(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr())
	other := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := c.Create(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	_, _, ch, err := c.GetDataW(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	w := addWatch(t, c, path, framework.WatchPersistent)
	replied := make(chan struct{}, 1)
	removeXid, armed := int32(0), false
	p.Trace(func(f zktest.Frame) {
		switch {
		case !f.FromServer && f.Op == zktest.Op(18) && !armed:
			removeXid, armed = f.Xid, true
		case f.FromServer && armed && f.Xid == removeXid:
			select {
			case replied <- struct{}{}:
			default:
			}
		}
	})
	p.SetLatency(100 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- w.Close(ctx) }()
	select {
	case <-replied:
	case <-time.After(testWait):
		t.Fatal("no reply to removeWatches")
	}
	if _, err := other.SetData(ctx, path, []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	oneShot(t, ch, zk.EventNodeDataChanged)
	p.Trace(nil)
	if n := watchers(t, srv, path); n != 0 {
		t.Fatalf("sessions watching %s after Close = %d, want 0", path, n)
	}
}
