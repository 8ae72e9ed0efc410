package framework_test

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The retry policy's elapsed time includes the first attempt: an UntilElapsed of
// 300ms allows no retry after a first attempt that took 400ms.
func TestRetryClockStartsBeforeFirstAttempt(t *testing.T) {
	c := newUnstartedClientPolicy(t, sharedServer(t).ConnectString(), retry.UntilElapsed{MaxElapsed: 300 * time.Millisecond, Sleep: 10 * time.Millisecond})
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	err := c.RetryLoop(ctx, func(ctx context.Context) error {
		if calls.Add(1) == 1 {
			select { // a slow first attempt
			case <-time.After(400 * time.Millisecond):
			case <-ctx.Done():
			}
		}
		return zk.ErrConnectionClosed
	})
	if !retry.IsRetryable(err) || calls.Load() != 1 {
		t.Fatalf("RetryLoop = %v after %d attempts, want the connection loss after 1", err, calls.Load())
	}
}

// Watch events of a namespaced client carry paths relative to its namespace, which
// address the same node when passed back to it.
func TestWatchEventPathsInNamespace(t *testing.T) {
	ns := strings.TrimPrefix(testRoot(t), "/") + "/app"
	c := newClient(t, sharedServer(t).ConnectString(), framework.WithNamespace(ns))
	ctx := testCtx(t)

	_, created, err := c.ExistsW(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, "/w", []byte("a")); err != nil {
		t.Fatal(err)
	}
	ev := awaitPathEvent(t, created, zk.EventNodeCreated, "/w")
	if st, err := c.Exists(ctx, ev.Path); err != nil || st == nil {
		t.Fatalf("Exists(%q) with the event's path = %v, %v; want the node", ev.Path, st, err)
	}

	_, _, changed, err := c.GetDataW(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	_, _, children, err := c.ChildrenW(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetData(ctx, "/w", []byte("b"), -1); err != nil {
		t.Fatal(err)
	}
	awaitPathEvent(t, changed, zk.EventNodeDataChanged, "/w")
	if _, err := c.Create(ctx, "/w/c", nil); err != nil {
		t.Fatal(err)
	}
	awaitPathEvent(t, children, zk.EventNodeChildrenChanged, "/w")

	// A view made by UsingNamespace strips its own namespace.
	view := c.UsingNamespace(ns + "/w")
	_, deleted, err := view.ExistsW(ctx, "/c")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/w/c"); err != nil {
		t.Fatal(err)
	}
	awaitPathEvent(t, deleted, zk.EventNodeDeleted, "/c")
}

func awaitPathEvent(t *testing.T, ch <-chan zk.Event, typ zk.EventType, path string) zk.Event {
	t.Helper()
	select {
	case ev := <-ch:
		if ev.Type != typ || ev.Path != path {
			t.Fatalf("event %v on %q, want %v on %q", ev.Type, ev.Path, typ, path)
		}
		return ev
	case <-time.After(testWait):
		t.Fatalf("no %v event on %q", typ, path)
	}
	return zk.Event{}
}

// No connection state reaches listeners once Close begins, even when the connection
// comes back while Close drains a guaranteed delete, which still runs on it.
func TestNoStateReportedDuringClose(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(4*time.Second))
	observer := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := c.Create(ctx, path, nil); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var states, duringClose []framework.ConnectionState
	c.Listen(func(st framework.ConnectionState) {
		mu.Lock()
		defer mu.Unlock()
		states = append(states, st)
		select {
		case <-c.Done():
			duringClose = append(duringClose, st)
		default:
		}
	})
	p.Pause() // new connections are held
	p.Sever()
	eventually(t, "SUSPENDED", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(states) > 0 && states[len(states)-1] == framework.Suspended
	})
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	err := c.Delete(short, path, framework.Guaranteed())
	cancel()
	if err == nil {
		t.Fatal("Delete succeeded without a connection")
	}
	before := c.State()

	closed := make(chan struct{})
	go func() {
		defer close(closed)
		c.Close()
	}()
	<-c.Done()
	p.Resume() // the client reconnects while Close drains the delete
	select {
	case <-closed:
	case <-time.After(testWait):
		t.Fatal("Close did not return")
	}
	if st, err := observer.Exists(ctx, path); err != nil || st != nil {
		t.Fatalf("the guaranteed delete did not run during Close: Exists = %v, %v", st, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(duringClose) > 0 {
		t.Fatalf("states reported during Close: %v (all: %v)", duringClose, states)
	}
	if after := c.State(); after != before {
		t.Fatalf("State changed during Close from %v to %v", before, after)
	}
}

var (
	seqName          = regexp.MustCompile(`^/[0-9]{10}$`)
	protectedSeqName = regexp.MustCompile(`^/_c_[0-9a-f-]{36}-[0-9]{10}$`)
)

// A sequential create of "/" in a namespace makes a child of the namespace root, in
// Create (with and without protection) and in a transaction, and returns its path
// relative to the namespace.
func TestSequentialCreateOfNamespaceRoot(t *testing.T) {
	srv := sharedServer(t)
	top := testRoot(t)
	ns := strings.TrimPrefix(top, "/") + "/app"
	c := newClient(t, srv.ConnectString(), framework.WithNamespace(ns))
	root := newClient(t, srv.ConnectString())
	ctx := testCtx(t)

	check := func(what, p string, err error, name *regexp.Regexp) {
		t.Helper()
		if err != nil || !name.MatchString(p) {
			t.Fatalf("%s = %q, %v; want a path matching %v", what, p, err, name)
		}
		if st, err := root.Exists(ctx, "/"+ns+p); err != nil || st == nil {
			t.Fatalf("%s: no node at %q: %v, %v", what, "/"+ns+p, st, err)
		}
	}
	p, err := c.Create(ctx, "/", nil, framework.WithMode(framework.PersistentSequential))
	check("Create", p, err, seqName)
	p, err = c.Create(ctx, "/", nil, framework.WithMode(framework.EphemeralSequential), framework.WithProtection())
	check("protected Create", p, err, protectedSeqName)
	res, err := c.Transaction(ctx, &zk.CreateRequest{Path: "/", Flags: zk.FlagSequence})
	if err == nil && len(res) == 1 {
		err = res[0].Error
		p = res[0].String
	}
	check("Transaction", p, err, seqName)

	children, _, err := root.Children(ctx, top)
	if err != nil || len(children) != 1 || children[0] != "app" {
		t.Fatalf("children of %q = %v, %v; want only the namespace root app", top, children, err)
	}
}
