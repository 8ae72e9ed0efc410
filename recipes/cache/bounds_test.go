package cache_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// goroutinePeak samples the number of goroutines until stop is called, and
// returns the highest it saw.
func goroutinePeak() (stop func() int) {
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if n := int64(runtime.NumGoroutine()); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int { close(done); wg.Wait(); return int(peak.Load()) }
}

// A tree of thousands of nodes costs a handful of goroutines, not one per
// node or per watch: while it loads, while it follows changes, and while it
// reads the whole tree again after a reconnect. Each node read, up to the
// bound, costs four more while it lasts: its reader, the listing beside its
// data read, and the client's call for each.
func TestGoroutinesBounded(t *testing.T) {
	const parents, children = 30, 99 // 3,001 nodes
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(10*time.Second))
	ctx := testCtx(t)
	must(t, buildTreeOf(ctx, admin, "/many", parents, children))
	tc, err := cache.NewTreeCache(c, "/many")
	must(t, err)
	defer tc.Close()

	peak := goroutinePeak()
	before := runtime.NumGoroutine()
	must(t, tc.Start(ctx))
	if n := len(tc.Snapshot()); n != 1+parents*(1+children) {
		t.Fatalf("the cache holds %d nodes, want %d", n, 1+parents*(1+children))
	}
	for i := range parents {
		_, err := admin.SetData(ctx, fmt.Sprintf("/many/p%03d/c000", i), []byte("changed"), -1)
		must(t, err)
	}
	p.Sever()
	zktest.Eventually(t, 20*time.Second, "the client to reconnect", func() bool { return c.State() == framework.Reconnected })
	_, err = admin.Create(ctx, "/many/zz", nil) // read after the whole tree
	must(t, err)
	zktest.Eventually(t, 30*time.Second, "the cache to read the tree again", func() bool {
		_, ok := tc.Current("/many/zz")
		return ok
	})
	if grown, most := peak()-before, 10+4*cache.ReadsInFlight; grown > most {
		t.Errorf("a cache of %d nodes ran up to %d more goroutines, want at most %d", 1+parents*(1+children), grown, most)
	}
}

// A consumer that reads nothing while thousands of changes happen holds
// back at most the tree's size in events (and a fixed slack), and loses
// nothing: once it reads, replaying what it receives gives every node as the
// server has it, with no event for a state the cache never held, and the
// changes after it caught up come one by one.
func TestSlowConsumerLosesNothing(t *testing.T) {
	type slowCache interface {
		Start(context.Context) error
		Events() <-chan cache.Event
		Close() error
		Queued() int
	}
	for _, kind := range []string{"tree", "children"} {
		t.Run(kind, func(t *testing.T) {
			const nodes, writes = 20, 6000
			srv := zktest.StartServer(t)
			admin := zkclient.New(t, srv.ConnectString())
			c := zkclient.New(t, srv.ConnectString())
			ctx := testCtx(t)
			for i := range nodes {
				_, err := admin.Create(ctx, fmt.Sprintf("/slow/n%02d", i), nil, framework.CreatingParentsIfNeeded())
				must(t, err)
			}
			var sc slowCache
			var err error
			if kind == "tree" {
				sc, err = cache.NewTreeCache(c, "/slow")
			} else {
				sc, err = cache.NewPathChildrenCache(c, "/slow")
			}
			must(t, err)
			defer sc.Close()
			must(t, sc.Start(ctx))

			// Updates, and a node created and deleted, while nobody reads.
			bound := cache.Slack + 2*(nodes+2) + 10
			peak := 0
			for i := range writes {
				var err error
				switch i % 10 {
				case 0:
					_, err = admin.Create(ctx, "/slow/churn", []byte(fmt.Sprint(i)))
				case 5:
					err = admin.Delete(ctx, "/slow/churn")
				default:
					_, err = admin.SetData(ctx, fmt.Sprintf("/slow/n%02d", i%nodes), []byte(fmt.Sprint(i)), -1)
				}
				must(t, err)
				peak = max(peak, sc.Queued())
			}
			if peak > bound {
				t.Errorf("up to %d events waited for a consumer that read nothing; want at most %d", peak, bound)
			}

			want := serverTree(t, admin, "/slow")
			replayed := map[string]cache.Node{}
			if kind == "children" { // the parent is not reported: take it as known
				replayed["/slow"] = want["/slow"]
			}
			ev := sc.Events()
			for i := 0; !sameTree(replayed, want); i++ {
				if i > writes+nodes {
					t.Fatalf("after %d events the replayed tree still differs from the server's", i)
				}
				e := next(t, ev)
				if err := apply(replayed, e); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
			}
			_, err = admin.SetData(ctx, "/slow/n00", []byte("last"), -1)
			must(t, err)
			e := next(t, ev)
			if e.Type != cache.NodeUpdated || e.Node.Path != "/slow/n00" || e.Node.Stat.Version != want["/slow/n00"].Stat.Version+1 {
				t.Fatalf("after the consumer caught up, a change of /slow/n00 gave %v", e)
			}
		})
	}
}
