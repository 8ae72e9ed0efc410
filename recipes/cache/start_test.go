package cache_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A Start whose context ends in the middle of the load leaves a cache that
// a later Start loads and follows completely: a node read by the failed
// load, and changed between the two, is reported once, as added, and
// followed afterwards.
func TestStartAgainAfterAFailedLoadFollowsEveryNode(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr())
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
	zktest.Eventually(t, 10*time.Second, "the load to list the root's children", func() bool {
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
	// Nothing of the failed load is left: the second reports every node
	// as it finds it, added.
	if len(got) != 2 || !got["NODE_ADDED /again (version 1)"] || !got["NODE_ADDED /again/a (version 0)"] {
		t.Fatalf("the load reported %v, want the root at version 1 and /again/a added", got)
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
	c := zkclient.New(t, srv.ConnectString())
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

// A Start that fails while the connection is suspended (its context ends
// during a partition) leaves nothing queued: a later Start reports no stale
// suspension after Initialized and follows every change.
func TestStartAgainAfterAStartFailedWhileSuspended(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(20*time.Second))
	ctx := testCtx(t)
	_, err := admin.Create(ctx, "/blip/a", []byte("0"), framework.CreatingParentsIfNeeded())
	must(t, err)
	tc, err := cache.NewTreeCache(c, "/blip")
	must(t, err)
	defer tc.Close()

	// The load waits behind the partition; the connection is then cut, so
	// the client reports Suspended to the load's listener (registered before
	// ours: listeners are called in order).
	p.Pause()
	loadCtx, cancel := context.WithCancel(ctx)
	failed := make(chan error, 1)
	go func() { failed <- tc.Start(loadCtx) }()
	zktest.Eventually(t, 10*time.Second, "the load's first read", func() bool { return p.RequestCount(zktest.OpGetData) > 0 })
	states := make(chan framework.ConnectionState, 16)
	stop := c.Listen(func(s framework.ConnectionState) { states <- s })
	defer stop()
	p.Sever()
	awaitNotice(t, states, framework.Suspended)
	cancel()
	if err := <-failed; !errors.Is(err, context.Canceled) {
		t.Fatalf("Start with its context cancelled while suspended: %v", err)
	}
	p.Resume()
	awaitNotice(t, states, framework.Reconnected)
	if n, q := tc.Inputs(), tc.Queued(); n != 0 || q != 0 {
		t.Fatalf("a failed Start left %d inputs and %d events queued", n, q)
	}

	must(t, tc.Start(ctx))
	ev := tc.Events()
	expect(t, ev, "NODE_ADDED /blip", "NODE_ADDED /blip/a", "INITIALIZED")
	for i := range 3 {
		_, err := admin.SetData(ctx, "/blip/a", []byte(fmt.Sprint(i)), -1)
		must(t, err)
		if e := next(t, ev); e.String() != fmt.Sprintf("NODE_UPDATED /blip/a (version %d)", i+1) {
			t.Fatalf("after set %d of /blip/a: %v", i+1, e)
		}
	}
}

// awaitNotice reads connection states until want, failing after 30 s.
func awaitNotice(t *testing.T, states <-chan framework.ConnectionState, want framework.ConnectionState) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
		case <-timeout:
			t.Fatalf("the client did not report %v within 30 s", want)
		}
	}
}
