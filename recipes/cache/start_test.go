package cache_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A Start whose context ends in the middle of the load leaves a cache that
// a later Start loads and follows completely: a node read by the failed
// load, and changed between the two, is still followed afterwards.
func TestStartAgainAfterAFailedLoadFollowsEveryNode(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := locktest.NewClient(t, srv.ConnectString())
	c := locktest.NewClient(t, p.Addr())
	ctx := testCtx(t)
	_, err := admin.Create(ctx, "/again/a", []byte("0"), framework.CreatingParentsIfNeeded())
	must(t, err)
	tc, err := cache.NewTreeCache(c, "/again")
	must(t, err)
	defer tc.Close()

	// The root's data is read (and watched); its children are being listed
	// when the load's context ends.
	p.SetLatency(100 * time.Millisecond)
	loadCtx, cancel := context.WithCancel(ctx)
	failed := make(chan error, 1)
	go func() { failed <- tc.Start(loadCtx) }()
	locktest.Eventually(t, 10*time.Second, "the load to list the root's children", func() bool {
		return p.RequestCount(zktest.OpGetChildren2)+p.RequestCount(zktest.OpGetChildren) > 0
	})
	cancel()
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Fatalf("Start with its context cancelled during the load: %v", err)
	}
	p.SetLatency(0)
	_, err = admin.SetData(ctx, "/again", []byte("between the starts"), -1)
	must(t, err)

	must(t, tc.Start(ctx))
	ev := tc.Events()
	got := map[string]bool{}
	for e := next(t, ev); e.Type != cache.Initialized; e = next(t, ev) {
		got[e.String()] = true
	}
	for _, w := range []string{"NODE_ADDED /again (version 1)", "NODE_ADDED /again/a (version 0)"} {
		if !got[w] {
			// The first load may have reported the root at version 0
			// before it failed; then the second reports the update.
			if w == "NODE_ADDED /again (version 1)" && got["NODE_ADDED /again (version 0)"] && got["NODE_UPDATED /again (version 1)"] {
				continue
			}
			t.Fatalf("the load reported %v, want %q among them", got, w)
		}
	}
	_, err = admin.SetData(ctx, "/again", []byte("after"), -1)
	must(t, err)
	if e := next(t, ev); e.String() != "NODE_UPDATED /again (version 2)" {
		t.Fatalf("after a change of the root: %v", e)
	}
	_, err = admin.SetData(ctx, "/again/a", []byte("after"), -1)
	must(t, err)
	if e := next(t, ev); e.String() != "NODE_UPDATED /again/a (version 1)" {
		t.Fatalf("after a change of a child: %v", e)
	}
}

// Start with a context already ended makes no change and leaves the cache
// ready to start.
func TestStartWithAnEndedContext(t *testing.T) {
	srv := zktest.StartServer(t)
	c := locktest.NewClient(t, srv.ConnectString())
	ctx := testCtx(t)
	_, err := c.Create(ctx, "/ended", nil)
	must(t, err)
	nc, err := cache.NewNodeCache(c, "/ended")
	must(t, err)
	defer nc.Close()
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := nc.Start(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start with an ended context: %v", err)
	}
	must(t, nc.Start(ctx))
	expect(t, nc.Events(), "NODE_ADDED /ended", "INITIALIZED")
}
