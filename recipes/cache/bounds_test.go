package cache_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A tree of hundreds of nodes costs a handful of goroutines, not one per
// node, and a consumer that reads nothing for a while loses nothing: the
// load and every node's last version come, in order, once it reads.
func TestGoroutinesBoundedAndASlowConsumerLosesNothing(t *testing.T) {
	const nodes, sets = 400, 100
	srv := zktest.StartServer(t)
	c := locktest.NewClient(t, srv.ConnectString())
	ctx := testCtx(t)
	for i := range nodes {
		_, err := c.Create(ctx, fmt.Sprintf("/bounded/n%03d", i), nil, framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	tc, err := cache.NewTreeCache(c, "/bounded")
	must(t, err)
	defer tc.Close()
	before := runtime.NumGoroutine()
	must(t, tc.Start(ctx))
	for i := range sets { // while nobody reads
		_, err := c.SetData(ctx, fmt.Sprintf("/bounded/n%03d", i%10), []byte(fmt.Sprint(i)), -1)
		must(t, err)
	}
	if grown := runtime.NumGoroutine() - before; grown > 10 {
		t.Errorf("a cache of %d nodes runs %d more goroutines, want a handful", nodes+1, grown)
	}

	ev := tc.Events()
	added := 0
	for added < nodes+1 {
		e := next(t, ev)
		if e.Type != cache.NodeAdded {
			t.Fatalf("event %d of the load: %v", added, e)
		}
		added++
	}
	expect(t, ev, "INITIALIZED")
	// Updates of one node may coalesce (the cache reports differences), but
	// each node's versions only rise and end at its last set.
	last := map[string]int32{}
	for done := 0; done < 10; {
		e := next(t, ev)
		if e.Type != cache.NodeUpdated || e.Node.Stat.Version <= last[e.Node.Path] {
			t.Fatalf("after the load: %v (version %d after %d)", e, e.Node.Stat.Version, last[e.Node.Path])
		}
		last[e.Node.Path] = e.Node.Stat.Version
		if e.Node.Stat.Version == sets/10 {
			done++
		}
	}
}

// Close returns promptly whether the cache was never started or its
// consumer is not reading.
func TestCloseReturnsWithoutAReader(t *testing.T) {
	srv := zktest.StartServer(t)
	c := locktest.NewClient(t, srv.ConnectString())
	never, err := cache.NewNodeCache(c, "/never")
	must(t, err)
	closed := make(chan error, 1)
	go func() { closed <- never.Close() }()
	select {
	case err := <-closed:
		must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Close of a cache never started did not return")
	}

	ctx := testCtx(t)
	_, err = c.Create(ctx, "/unread", nil)
	must(t, err)
	tc, err := cache.NewTreeCache(c, "/unread")
	must(t, err)
	must(t, tc.Start(ctx))
	go func() { closed <- tc.Close() }()
	select {
	case err := <-closed:
		must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Close with unread events did not return")
	}
	for range tc.Events() { // the channel is closed: what was left drains
	}
}
