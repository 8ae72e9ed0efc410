package framework_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
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
	for round := range 2 {
		_, _, ch, err := c.GetDataW(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		set("one")
		oneShot(t, ch, zk.EventNodeDataChanged)
		nextChange(t, w, changed(path))
		set("two") // only the persistent watch is left to report it
		nextChange(t, w, changed(path))
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
