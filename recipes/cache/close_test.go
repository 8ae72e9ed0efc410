package cache_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// returnsWithin fails the test if fn does not return within d.
func returnsWithin(t *testing.T, d time.Duration, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
	return nil
}

// closer is what every cache has.
type closer interface {
	Start(ctx context.Context) error
	Close() error
	Events() <-chan cache.Event
}

// eachKind returns a constructor of each kind of cache of path, by name.
func eachKind(c *framework.Client, path string) map[string]func() (closer, error) {
	return map[string]func() (closer, error){
		"node":     func() (closer, error) { return cache.NewNodeCache(c, path) },
		"children": func() (closer, error) { return cache.NewPathChildrenCache(c, path) },
		"tree":     func() (closer, error) { return cache.NewTreeCache(c, path) },
	}
}

// A cache never started closes at once and closes its Events channel; a
// second Close returns nil at once, and a Start after Close is ErrClosed.
func TestCloseOfANeverStartedCache(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	for name, newCache := range eachKind(c, "/never") {
		cc, err := newCache()
		must(t, err)
		must(t, returnsWithin(t, 5*time.Second, name+": Close", cc.Close))
		if _, ok := <-cc.Events(); ok {
			t.Errorf("%s: an event from a cache never started", name)
		}
		if err := returnsWithin(t, 5*time.Second, name+": a second Close", cc.Close); err != nil {
			t.Errorf("%s: a second Close: %v, want nil", name, err)
		}
		if err := cc.Start(testCtx(t)); !errors.Is(err, cache.ErrClosed) {
			t.Errorf("%s: Start after Close: %v, want ErrClosed", name, err)
		}
	}
}

// A cache started on a closed client fails with the client's
// framework.ErrClosed, at once, and can still be closed.
func TestStartOnAClosedClient(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	must(t, c.Close())
	for name, newCache := range eachKind(c, "/closed") {
		cc, err := newCache()
		must(t, err)
		err = returnsWithin(t, 5*time.Second, name+": Start", func() error { return cc.Start(testCtx(t)) })
		if !errors.Is(err, framework.ErrClosed) {
			t.Errorf("%s: Start on a closed client: %v, want framework.ErrClosed", name, err)
		}
		must(t, cc.Close())
	}
}

// Close does not wait for a Start whose load cannot finish (the server is
// unreachable and the client retries forever): the load ends with
// ErrClosed and Close returns.
func TestCloseEndsAStartThatCannotFinish(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.NewWithPolicy(t, p.Addr(), retry.Forever{Interval: 50 * time.Millisecond},
		framework.WithSessionTimeout(30*time.Second), framework.WithConnectionTimeout(30*time.Second))
	tc, err := cache.NewTreeCache(c, "/unreachable")
	must(t, err)

	p.Pause()
	started := make(chan error, 1)
	go func() { started <- tc.Start(context.Background()) }()
	zktest.Eventually(t, 10*time.Second, "the load's first read to be sent", func() bool {
		return p.RequestCount(zktest.OpGetData) > 0
	})
	must(t, returnsWithin(t, 5*time.Second, "Close during a Start", tc.Close))
	select {
	case err := <-started:
		if !errors.Is(err, cache.ErrClosed) {
			t.Errorf("Start ended by Close: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Start did not return after Close")
	}
	if _, ok := <-tc.Events(); ok {
		t.Error("an event from a cache closed before its load completed")
	}
	p.Resume()
}

// Close while the cache is reading a changed node, with a consumer that
// reads nothing, returns promptly and leaves no goroutine behind.
func TestClosedCacheLeavesNothingRunning(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.NewWithPolicy(t, p.Addr(), retry.Forever{Interval: 50 * time.Millisecond},
		framework.WithSessionTimeout(30*time.Second), framework.WithConnectionTimeout(30*time.Second))
	ctx := testCtx(t)
	for _, n := range []string{"/leak/a/x", "/leak/b"} {
		_, err := admin.Create(ctx, n, nil, framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	ignore := goleak.IgnoreCurrent()
	tc, err := cache.NewTreeCache(c, "/leak")
	must(t, err)
	must(t, tc.Start(ctx))
	// A change whose read is still on its way when Close comes (the
	// client's request itself ends a round trip later).
	p.SetLatency(200 * time.Millisecond)
	before := p.RequestCount(zktest.OpGetData)
	_, err = admin.SetData(ctx, "/leak/b", []byte("1"), -1)
	must(t, err)
	zktest.Eventually(t, 10*time.Second, "the cache to read the changed node", func() bool {
		return p.RequestCount(zktest.OpGetData) > before
	})
	must(t, returnsWithin(t, 5*time.Second, "Close during a read", tc.Close))
	for range tc.Events() { // closed: what was left drains
	}
	// The read under way ends a delayed round trip after Close, later still
	// on a loaded machine: give it up to ten seconds (goleak alone waits
	// about one), then let goleak name whatever is left.
	for deadline := time.Now().Add(10 * time.Second); goleak.Find(ignore) != nil && time.Now().Before(deadline); {
	}
	goleak.VerifyNone(t, ignore)
}

// A CuratorCache's Close while its connection hangs waits at most two
// seconds for the server to remove its recursive watch (which goes with the
// connection otherwise): it returns within a few seconds, the cache's
// goroutines ended.
func TestCuratorCacheCloseWhileTheConnectionHangs(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.NewWithPolicy(t, p.Addr(), retry.Forever{Interval: 50 * time.Millisecond},
		framework.WithSessionTimeout(30*time.Second), framework.WithConnectionTimeout(30*time.Second))
	ctx := testCtx(t)
	_, err := c.Create(ctx, "/hang/a", nil, framework.CreatingParentsIfNeeded())
	must(t, err)
	ignore := goleak.IgnoreCurrent()
	cc, err := cache.NewCuratorCache(c, "/hang")
	must(t, err)
	must(t, cc.Start(ctx))
	if cc.Mode() != cache.RecursiveWatch {
		t.Fatalf("Mode() = %v, want %v", cc.Mode(), cache.RecursiveWatch)
	}
	p.Pause()
	must(t, returnsWithin(t, 5*time.Second, "Close while the connection hangs", cc.Close))
	// The client's removal of the watch still waits for its reply: the
	// client's goroutine, ended by the connection's end or the client's Close.
	goleak.VerifyNone(t, ignore, goleak.IgnoreAnyFunction("github.com/zkcurator/zkcurator/framework.(*watchRegistry).remove"))
	p.Resume()
}
