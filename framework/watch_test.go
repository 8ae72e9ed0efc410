package framework_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// nextEvent returns the watch's next event, failing the test after testWait.
func nextEvent(t *testing.T, w *framework.PersistentWatch) framework.WatchEvent {
	t.Helper()
	return nextEventWithin(t, w, testWait)
}

// nextEventWithin is nextEvent with a bound of its own.
func nextEventWithin(t *testing.T, w *framework.PersistentWatch, d time.Duration) framework.WatchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		if !ok {
			t.Fatal("the watch's channel closed")
		}
		return ev
	case <-time.After(d):
		t.Fatalf("no watch event within %v", d)
	}
	return framework.WatchEvent{}
}

// expectEvents reads the watch's next events and compares them with want.
func expectEvents(t *testing.T, w *framework.PersistentWatch, want ...framework.WatchEvent) {
	t.Helper()
	for i, ev := range want {
		if got := nextEvent(t, w); got != ev {
			t.Fatalf("event %d = %+v, want %+v", i, got, ev)
		}
	}
}

// awaitReset skips events until a reset.
func awaitReset(t *testing.T, w *framework.PersistentWatch) {
	t.Helper()
	awaitResetWithin(t, w, testWait)
}

// awaitResetWithin is awaitReset with a bound of its own.
func awaitResetWithin(t *testing.T, w *framework.PersistentWatch, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for range 1000 {
		if nextEventWithin(t, w, time.Until(deadline)).Reset {
			return
		}
	}
	t.Fatal("no reset among 1000 events")
}

func created(p string) framework.WatchEvent {
	return framework.WatchEvent{Type: zk.EventNodeCreated, Path: p}
}
func changed(p string) framework.WatchEvent {
	return framework.WatchEvent{Type: zk.EventNodeDataChanged, Path: p}
}
func deleted(p string) framework.WatchEvent {
	return framework.WatchEvent{Type: zk.EventNodeDeleted, Path: p}
}
func childrenChanged(p string) framework.WatchEvent {
	return framework.WatchEvent{Type: zk.EventNodeChildrenChanged, Path: p}
}

// watchers returns how many sessions watch path on srv.
func watchers(t *testing.T, srv *zktest.Server, path string) int {
	t.Helper()
	counts, err := srv.WatchCounts(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return counts[path]
}

func addWatch(t *testing.T, c *framework.Client, path string, mode framework.AddWatchMode) *framework.PersistentWatch {
	t.Helper()
	w, err := c.AddWatch(testCtx(t), path, mode)
	if err != nil {
		t.Fatalf("AddWatch(%s, %v): %v", path, mode, err)
	}
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

// A persistent watch reports every change of its node in the server's
// order, and keeps reporting after each; a recursive one reports its node's
// and descendants' changes, without children events; paths are relative to
// the namespace.
func TestWatchEventsInServerOrder(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString(), framework.WithNamespace("watchns"))
	ctx := testCtx(t)
	root := testRoot(t)
	node := root + "/a"
	one := addWatch(t, c, node, framework.WatchPersistent)
	tree := addWatch(t, c, root, framework.WatchPersistentRecursive)
	if _, err := c.Create(ctx, node, nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := c.SetData(ctx, node, []byte{byte(i)}, -1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Create(ctx, node+"/b", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, node, framework.DeletingChildrenIfNeeded()); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, one, created(node), changed(node), changed(node), changed(node),
		childrenChanged(node), childrenChanged(node), deleted(node))
	expectEvents(t, tree, created(root), created(node), changed(node), changed(node), changed(node),
		created(node+"/b"), deleted(node+"/b"), deleted(node))
	if one.Path() != node || one.Mode() != framework.WatchPersistent || tree.Mode().String() != "PERSISTENT_RECURSIVE" {
		t.Fatalf("Path, Mode = %s, %v", one.Path(), one.Mode())
	}
}

// Bad modes and paths fail before any request.
func TestAddWatchInvalidArguments(t *testing.T) {
	c := newUnstartedClient(t, deadAddr(t))
	for _, tc := range []struct {
		path string
		mode framework.AddWatchMode
	}{{"/a", framework.AddWatchMode(7)}, {"a", framework.WatchPersistent}, {"/a/", framework.WatchPersistent}} {
		if _, err := c.AddWatch(testCtx(t), tc.path, tc.mode); !errors.Is(err, framework.ErrInvalidArgument) && !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("AddWatch(%q, %d) = %v, want an invalid argument", tc.path, tc.mode, err)
		}
	}
}

// A persistent watch's notifications also reach ListenNodeEvents, as every
// notification does.
func TestWatchNotificationsReachNodeEvents(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	root := testRoot(t)
	got := make(chan zk.Event, 10)
	stop := c.ListenNodeEvents(func(ev zk.Event) { got <- ev })
	defer stop()
	w := addWatch(t, c, root, framework.WatchPersistent)
	if _, err := c.Create(testCtx(t), root, nil); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, w, created(root))
	select {
	case ev := <-got:
		if ev.Type != zk.EventNodeCreated || ev.Path != root {
			t.Fatalf("node event = %+v", ev)
		}
	case <-time.After(testWait):
		t.Fatal("no node event")
	}
}

// Two handles on one path and mode share the server's one watch; the last
// Close removes it, and a handle's channel closes with its Close.
func TestWatchSharedAndRemovedByLastClose(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	a := addWatch(t, c, root, framework.WatchPersistent)
	b := addWatch(t, c, root, framework.WatchPersistent)
	if n := watchers(t, srv, root); n != 1 {
		t.Fatalf("sessions watching %s = %d, want 1", root, n)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-a.Events(); ok {
		t.Fatal("a closed handle's channel delivered an event")
	}
	if n := watchers(t, srv, root); n != 1 {
		t.Fatalf("after one Close: sessions watching %s = %d, want 1", root, n)
	}
	if _, err := c.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, b, created(root))
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := watchers(t, srv, root); n != 0 {
		t.Fatalf("after the last Close: sessions watching %s = %d, want 0", root, n)
	}
	if err := b.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// A reader that does not keep up loses the queued events to one reset.
func TestWatchOverflowResets(t *testing.T) {
	framework.SetPendingWatchEvents(t, 4)
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	w := addWatch(t, c, root, framework.WatchPersistent)
	if _, err := c.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	const changes = 40
	for i := range changes {
		if _, err := c.SetData(ctx, root, []byte(fmt.Sprint(i)), -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(ctx, root); err != nil {
		t.Fatal(err)
	}
	resets, events := 0, 0
	for ev := nextEvent(t, w); ev.Type != zk.EventNodeDeleted; ev = nextEvent(t, w) {
		if ev.Reset {
			resets++
		} else {
			events++
		}
	}
	if resets == 0 || events >= changes+1 {
		t.Fatalf("%d events and %d resets for %d changes with room for 4: want a reset in place of dropped events", events, resets, changes+1)
	}
}

// Closing the client closes every handle's channel; a later AddWatch
// returns ErrClosed.
func TestWatchEndsWithTheClient(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	w := addWatch(t, c, testRoot(t), framework.WatchPersistentRecursive)
	c.Close()
	select {
	case _, ok := <-w.Events():
		if ok {
			t.Fatal("an event after the client's Close")
		}
	case <-time.After(testWait):
		t.Fatal("the channel stayed open after the client's Close")
	}
	if _, err := c.AddWatch(testCtx(t), testRoot(t), framework.WatchPersistent); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("AddWatch on a closed client = %v, want ErrClosed", err)
	}
	if err := w.Close(testCtx(t)); err != nil {
		t.Fatalf("Close after the client's: %v", err)
	}
}

// A handle's Close racing another handle's AddWatch on the same path and
// mode never leaves the new handle without the server's watch.
func TestWatchCloseRacingAddWatch(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := c.Create(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		a, err := c.AddWatch(ctx, path, framework.WatchPersistent)
		if err != nil {
			t.Fatal(err)
		}
		closed := make(chan error, 1)
		go func() { closed <- a.Close(ctx) }()
		b, err := c.AddWatch(ctx, path, framework.WatchPersistent)
		if err != nil {
			t.Fatal(err)
		}
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetData(ctx, path, []byte{byte(i)}, -1); err != nil {
			t.Fatal(err)
		}
		for ev := nextEvent(t, b); ev != changed(path); ev = nextEvent(t, b) {
			if !ev.Reset {
				t.Fatalf("round %d: event %+v", i, ev)
			}
		}
		if err := b.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := watchers(t, srv, path); n != 0 {
		t.Fatalf("sessions watching %s = %d, want 0", path, n)
	}
}

// Behind a chroot and a namespace, events are relative to each handle's
// view; two views' recursive watches on "/" are two watches, and a change
// outside a view's namespace reaches only the view that holds it.
func TestWatchPathsBehindChrootAndNamespace(t *testing.T) {
	srv := sharedServer(t)
	raw := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := raw.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.ConnectString()+root, framework.WithNamespace("app"))
	if _, err := raw.Create(ctx, root+"/app", nil); err != nil {
		t.Fatal(err)
	}
	inApp := addWatch(t, c, "/", framework.WatchPersistentRecursive)
	inChroot := addWatch(t, c.UsingNamespace(""), "/", framework.WatchPersistentRecursive)
	if _, err := raw.Create(ctx, root+"/app/x", nil); err != nil {
		t.Fatal(err)
	}
	if err := raw.Delete(ctx, root+"/app/x"); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create(ctx, root+"/outside", nil); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, inApp, created("/x"), deleted("/x"))
	expectEvents(t, inChroot, created("/app/x"), deleted("/app/x"), created("/outside"))
	if _, err := raw.Create(ctx, root+"/app/end", nil); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, inApp, created("/end")) // and not /outside
	if n := watchers(t, srv, root); n != 1 {
		t.Fatalf("sessions watching %s = %d, want 1", root, n)
	}
	if inApp.Path() != "/" || inChroot.Path() != "/" {
		t.Fatalf("Path() = %q, %q, want /", inApp.Path(), inChroot.Path())
	}
}

// A client never holds a persistent and a recursive watch on one path
// (ZooKeeper before 3.9 keeps one mode per connection and path, and the
// removal of either ends both): the second mode is refused, in either order,
// the first watch stays whole, and once it is closed the other mode may be set.
func TestWatchBothModesOnOnePathRefused(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	other := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	for _, first := range []framework.AddWatchMode{framework.WatchPersistentRecursive, framework.WatchPersistent} {
		root := fmt.Sprintf("%s-%d", testRoot(t), int(first))
		if _, err := other.Create(ctx, root, nil); err != nil {
			t.Fatal(err)
		}
		second := framework.WatchPersistent
		if first == framework.WatchPersistent {
			second = framework.WatchPersistentRecursive
		}
		held := addWatch(t, c, root, first)
		if w, err := c.AddWatch(ctx, root, second); !errors.Is(err, framework.ErrWatchModeConflict) {
			if w != nil {
				w.Close(ctx)
			}
			t.Fatalf("AddWatch of mode %d beside mode %d = %v, want ErrWatchModeConflict", int(second), int(first), err)
		}
		if _, err := other.SetData(ctx, root, []byte("1"), -1); err != nil {
			t.Fatal(err)
		}
		nextChange(t, held, changed(root))
		if err := held.Close(ctx); err != nil {
			t.Fatal(err)
		}
		then := addWatch(t, c, root, second)
		if _, err := other.SetData(ctx, root, []byte("2"), -1); err != nil {
			t.Fatal(err)
		}
		nextChange(t, then, changed(root))
		if err := then.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if n := watchers(t, srv, root); n != 0 {
			t.Fatalf("sessions watching %s after both Close = %d, want 0", root, n)
		}
	}
}

// The last Close of a recursive watch leaves no watch on the server.
func TestWatchRecursiveRemovedByLastClose(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	w := addWatch(t, c, root, framework.WatchPersistentRecursive)
	if n := watchers(t, srv, root); n != 1 {
		t.Fatalf("sessions watching %s = %d, want 1", root, n)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := watchers(t, srv, root); n != 0 {
		t.Fatalf("after Close: sessions watching %s = %d, want 0", root, n)
	}
}
