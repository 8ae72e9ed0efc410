package cache_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// curatorModes are the two ways a CuratorCache follows its tree: one
// persistent recursive watch (the default on ZooKeeper 3.6+) and one-shot
// watches (WithOneShotWatches).
var curatorModes = []struct {
	name string
	opts []cache.Option
	mode cache.WatchMode
}{
	{"recursive", nil, cache.RecursiveWatch},
	{"one-shot", []cache.Option{cache.WithOneShotWatches()}, cache.OneShotWatches},
}

// startReplayed starts a CuratorCache of root whose changes a changeReplayer
// replays, closed at the end of the test, and checks that it runs in mode.
func startReplayed(t *testing.T, c *framework.Client, root string, mode cache.WatchMode, opts ...cache.Option) (*cache.CuratorCache, *changeReplayer) {
	t.Helper()
	cc, err := cache.NewCuratorCache(c, root, opts...)
	must(t, err)
	t.Cleanup(func() { cc.Close() })
	replayed := &changeReplayer{tree: map[string]cache.Node{}}
	cc.Listen(replayed)
	must(t, cc.Start(testCtx(t)))
	if got := cc.Mode(); got != mode {
		t.Fatalf("Mode() = %v after Start, want %v", got, mode)
	}
	return cc, replayed
}

// awaitReplayedTree waits until the cache, and the replay of what its
// listener was told, both hold the server's tree at root, and returns it.
func awaitReplayedTree(t *testing.T, writer *framework.Client, root string, cc *cache.CuratorCache, replayed *changeReplayer) map[string]cache.Node {
	t.Helper()
	want := serverTree(t, writer, root)
	zktest.Eventually(t, 20*time.Second, "the cache to match the server's tree", func() bool {
		return sameTree(nodesByPath(cc.Snapshot()), want)
	})
	zktest.Eventually(t, 20*time.Second, "replaying the listener's changes to give the server's tree", func() bool {
		return replayed.matches(t, want)
	})
	return want
}

// watchedBelow returns how many sessions watch each path at or below root
// on srv (its "wchp").
func watchedBelow(t *testing.T, srv *zktest.Server, root string) map[string]int {
	t.Helper()
	counts, err := srv.WatchCounts(testCtx(t))
	must(t, err)
	out := map[string]int{}
	for p, n := range counts {
		if p == root || strings.HasPrefix(p, root+"/") {
			out[p] = n
		}
	}
	return out
}

// Mode says which watches a CuratorCache uses: before Start the one it will
// try, after it the one in use. A client that holds a persistent watch of
// the other mode on the root makes the cache fall back to one-shot watches
// (as a server older than 3.6 does), and it still follows every change.
func TestCuratorCacheModeIsVisible(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	_, err := c.Create(ctx, "/mode/a", []byte("v0"), framework.CreatingParentsIfNeeded())
	must(t, err)
	for _, m := range curatorModes {
		cc, err := cache.NewCuratorCache(c, "/mode", m.opts...)
		must(t, err)
		if got := cc.Mode(); got != m.mode {
			t.Errorf("%s: Mode() = %v before Start, want %v", m.name, got, m.mode)
		}
		must(t, cc.Close())
	}

	w, err := c.AddWatch(ctx, "/mode", framework.WatchPersistent)
	must(t, err)
	defer w.Close(context.Background())
	cc, replayed := startReplayed(t, c, "/mode", cache.OneShotWatches)
	_, err = c.Create(ctx, "/mode/b", []byte("v0"))
	must(t, err)
	_, err = c.SetData(ctx, "/mode/a", []byte("v1"), -1)
	must(t, err)
	awaitReplayedTree(t, c, "/mode", cc, replayed)
	if cache.RecursiveWatch.String() != "PERSISTENT_RECURSIVE" || cache.OneShotWatches.String() != "ONE_SHOT" {
		t.Errorf("mode names %v, %v", cache.RecursiveWatch, cache.OneShotWatches)
	}
}

// Under a recursive watch the server holds one watch for the cache, on its
// root, however many nodes it holds (with one-shot watches, one per node);
// a created node and a changed one cost one getData each and no listing;
// Close removes the watch from the server (one-shot watches stay until they
// fire or the session ends).
func TestCuratorCacheServerHoldsOneWatch(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	for _, m := range curatorModes {
		t.Run(m.name, func(t *testing.T) {
			root := "/one-" + m.name
			must(t, buildTreeOf(ctx, writer, root, 3, 3))
			p := zktest.StartProxy(t, srv.ConnectString())
			c := zkclient.New(t, p.Addr())
			cc, replayed := startReplayed(t, c, root, m.mode, m.opts...)
			awaitReplayedTree(t, writer, root, cc, replayed)
			watched := watchedBelow(t, srv, root)
			if m.mode == cache.RecursiveWatch {
				if len(watched) != 1 || watched[root] != 1 {
					t.Fatalf("watches at or below %s: %v, want one session on %s alone", root, watched, root)
				}
			} else if len(watched) != 1+3*4 {
				t.Fatalf("watches at or below %s: %d paths, want each of the 13 nodes", root, len(watched))
			}

			p.ResetCounts()
			_, err := writer.Create(ctx, root+"/p000/new", []byte("n"))
			must(t, err)
			_, err = writer.SetData(ctx, root+"/p001/c001", []byte("changed"), -1)
			must(t, err)
			awaitReplayedTree(t, writer, root, cc, replayed)
			reads, batches := p.RequestCount(zktest.OpGetData), p.RequestCount(zktest.OpMultiRead)
			listings := p.RequestCount(zktest.OpGetChildren) + p.RequestCount(zktest.OpGetChildren2)
			t.Logf("a create and a change: %d getData, %d multiRead, %d getChildren", reads, batches, listings)
			if m.mode == cache.RecursiveWatch && (reads != 0 || batches < 1 || batches > 2 || listings != 0) {
				// Each read of data alone, in one multiRead or two (the loop
				// may take the two events in one step or in two).
				t.Errorf("a create and a change cost %d getData, %d multiRead and %d getChildren, want 0, 1 or 2, and 0", reads, batches, listings)
			}

			must(t, cc.Close())
			if m.mode == cache.RecursiveWatch { // one-shot watches stay until they fire
				zktest.Eventually(t, 10*time.Second, "no watch left at or below "+root, func() bool {
					return len(watchedBelow(t, srv, root)) == 0
				})
			}
		})
	}
}

// curatorFault is a fault of the cache's client c (connected through p to
// srv): begin strikes it, end (after the writer's changes) lifts it.
type curatorFault struct {
	name       string
	begin, end func(t *testing.T, srv *zktest.Server, p *zktest.Proxy, c *framework.Client)
}

var curatorFaults = []curatorFault{
	{"sever", func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, _ *framework.Client) { p.Sever() }, nil},
	{"pause", func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, c *framework.Client) {
		p.Pause()
		awaitState(t, c, framework.Suspended)
	}, func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, _ *framework.Client) { p.Resume() }},
	{"expiry", func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, c *framework.Client) {
		p.Pause()
		awaitState(t, c, framework.Lost)
	}, func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, _ *framework.Client) { p.Resume() }},
	{"restart", func(t *testing.T, srv *zktest.Server, p *zktest.Proxy, c *framework.Client) {
		p.Pause() // the cache comes back only after the changes: it must read them
		awaitState(t, c, framework.Suspended)
		must(t, srv.Restart())
	}, func(t *testing.T, _ *zktest.Server, p *zktest.Proxy, _ *framework.Client) { p.Resume() }},
}

// In each watch mode, a cut connection, a paused one, a session expiry and
// a server restart, each with changes made while the cache cannot see them
// (a change, a deleted subtree, a new subtree, a node deleted and created
// again with the same data), end in a cache equal to the server's tree and
// a listener told nothing that contradicts it; the cache then follows the
// next change. Under a recursive watch the server holds one watch for the
// cache again.
func TestCuratorCacheThroughEachFault(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	session := srv.SessionOutlastingRestart(4 * time.Second)
	for _, m := range curatorModes {
		for _, f := range curatorFaults {
			t.Run(m.name+"/"+f.name, func(t *testing.T) {
				ctx := testCtx(t)
				root := fmt.Sprintf("/fault-%s-%s", m.name, f.name)
				for _, n := range []string{"/a/x", "/b/z", "/c"} {
					_, err := writer.Create(ctx, root+n, []byte("v0"), framework.CreatingParentsIfNeeded())
					must(t, err)
				}
				p := zktest.StartProxy(t, srv.ConnectString())
				timeout := session
				if f.name == "expiry" {
					timeout = 2 * time.Second
				}
				c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(timeout))
				cc, replayed := startReplayed(t, c, root, m.mode, m.opts...)
				awaitReplayedTree(t, writer, root, cc, replayed)

				f.begin(t, srv, p, c)
				_, err := writer.SetData(ctx, root+"/a", []byte("v1"), -1)
				must(t, err)
				must(t, writer.Delete(ctx, root+"/b", framework.DeletingChildrenIfNeeded()))
				_, err = writer.Create(ctx, root+"/d/e", []byte("v0"), framework.CreatingParentsIfNeeded())
				must(t, err)
				must(t, writer.Delete(ctx, root+"/c"))
				_, err = writer.Create(ctx, root+"/c", []byte("v0"))
				must(t, err)
				if f.end != nil {
					f.end(t, srv, p, c)
				}
				must(t, c.BlockUntilConnected(ctx))
				awaitReplayedTree(t, writer, root, cc, replayed)

				_, err = writer.Create(ctx, root+"/d/e/f", []byte("after"))
				must(t, err)
				_, err = writer.SetData(ctx, root+"/a/x", []byte("after"), -1)
				must(t, err)
				awaitReplayedTree(t, writer, root, cc, replayed)
				if m.mode == cache.RecursiveWatch {
					if watched := watchedBelow(t, srv, root); len(watched) != 1 || watched[root] != 1 {
						t.Fatalf("watches at or below %s after the fault: %v, want one session on %s alone", root, watched, root)
					}
				}
			})
		}
	}
}
