package watch_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/watch"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

const testWait = 15 * time.Second

func newClient(t *testing.T, connect string) *framework.Client {
	t.Helper()
	c, err := framework.NewClient(connect, retry.NTimes{N: 5, Sleep: 100 * time.Millisecond},
		framework.WithSessionTimeout(3*time.Second)) // go-zookeeper redials its only server after a second
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := c.BlockUntilConnected(zktest.Context(t, testWait)); err != nil {
		t.Fatal(err)
	}
	return c
}

// recorder collects what a watcher's listeners are called with, in order:
// events, and "reset" for each reset.
type recorder struct {
	mu   sync.Mutex
	got  []string
	more chan struct{}
}

func listen(w *watch.PersistentWatcher) *recorder {
	r := &recorder{more: make(chan struct{}, 1)}
	add := func(s string) {
		r.mu.Lock()
		r.got = append(r.got, s)
		r.mu.Unlock()
		select {
		case r.more <- struct{}{}:
		default:
		}
	}
	w.Listen(func(ev framework.WatchEvent) { add(ev.Type.String() + " " + ev.Path) })
	w.ListenReset(func() { add("reset") })
	return r
}

// await waits until the recorder holds want at its end, starting at or
// after index from, and returns the index after it.
func (r *recorder) await(t *testing.T, from int, want ...string) int {
	t.Helper()
	deadline := time.After(testWait)
	for {
		r.mu.Lock()
		got := append([]string(nil), r.got...)
		r.mu.Unlock()
		for i := from; i+len(want) <= len(got); i++ {
			if equal(got[i:i+len(want)], want) {
				return i + len(want)
			}
		}
		select {
		case <-r.more:
		case <-deadline:
			t.Fatalf("calls %q (from %d) never held %q", got, from, want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A recursive watcher calls its reset listeners once started, then its
// listeners with every change under its path in order; a cut connection
// gives a reset and the watch works on; Close removes the server's watch
// and no listener is called after it.
func TestPersistentWatcher(t *testing.T) {
	srv := shared.Server(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr())
	other := newClient(t, srv.ConnectString())
	ctx := zktest.Context(t, testWait)
	w, err := watch.NewPersistentWatcher(c, "/TestPersistentWatcher", true)
	if err != nil {
		t.Fatal(err)
	}
	r := listen(w)
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); !errors.Is(err, watch.ErrAlreadyStarted) {
		t.Fatalf("second Start = %v, want ErrAlreadyStarted", err)
	}
	at := r.await(t, 0, "reset")
	if _, err := other.Create(ctx, "/TestPersistentWatcher/a/b", nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	at = r.await(t, at, "EventNodeCreated /TestPersistentWatcher", "EventNodeCreated /TestPersistentWatcher/a",
		"EventNodeCreated /TestPersistentWatcher/a/b")
	p.Sever()
	at = r.await(t, at, "reset")
	if _, err := other.SetData(ctx, "/TestPersistentWatcher/a/b", []byte("x"), -1); err != nil {
		t.Fatal(err)
	}
	r.await(t, at, "EventNodeDataChanged /TestPersistentWatcher/a/b")
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	n := len(r.got)
	r.mu.Unlock()
	if _, err := other.SetData(ctx, "/TestPersistentWatcher/a/b", []byte("y"), -1); err != nil {
		t.Fatal(err)
	}
	counts, err := srv.WatchCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts["/TestPersistentWatcher"] != 0 {
		t.Fatalf("a session still watches the path after Close: %v", counts)
	}
	if _, err := other.Exists(ctx, "/"); err != nil { // a round trip after the change
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.got) != n {
		t.Fatalf("a listener was called after Close: %q", r.got[n:])
	}
	if err := w.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := w.Start(ctx); !errors.Is(err, watch.ErrClosed) {
		t.Fatalf("Start after Close = %v, want ErrClosed", err)
	}
}

// A watcher of one node reports its children changes too.
func TestPersistentWatcherOneNode(t *testing.T) {
	c := newClient(t, shared.Server(t).ConnectString())
	ctx := zktest.Context(t, testWait)
	w, err := watch.NewPersistentWatcher(c, "/TestPersistentWatcherOneNode", false)
	if err != nil {
		t.Fatal(err)
	}
	r := listen(w)
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Close(context.Background())
	if _, err := c.Create(ctx, "/TestPersistentWatcherOneNode/child", nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	r.await(t, 0, "reset", "EventNodeCreated /TestPersistentWatcherOneNode",
		"EventNodeChildrenChanged /TestPersistentWatcherOneNode")
}

// Bad arguments fail before any request; Start on a closed client fails
// with framework.ErrClosed.
func TestPersistentWatcherArguments(t *testing.T) {
	c := newClient(t, shared.Server(t).ConnectString())
	if _, err := watch.NewPersistentWatcher(nil, "/a", false); !errors.Is(err, watch.ErrInvalidArgument) {
		t.Errorf("nil client: %v", err)
	}
	if _, err := watch.NewPersistentWatcher(c, "a/", false); !errors.Is(err, watch.ErrInvalidArgument) {
		t.Errorf("bad path: %v", err)
	}
	w, err := watch.NewPersistentWatcher(c, "/", true)
	if err != nil {
		t.Fatalf("the root: %v", err)
	}
	c.Close()
	if err := w.Start(zktest.Context(t, testWait)); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Start on a closed client = %v, want framework.ErrClosed", err)
	}
}
