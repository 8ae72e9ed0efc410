package cache_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// opAddWatch is ZooKeeper's addWatch opcode, as the proxy counts it.
const opAddWatch = zktest.Op(106)

// restoreRace is a CuratorCache under a recursive watch, its client behind
// a proxy, with a tree of 4 parents of 4 children at root.
type restoreRace struct {
	p        *zktest.Proxy
	c        *framework.Client
	root     string
	cc       *cache.CuratorCache
	replayed *changeReplayer
}

func startRestoreRace(t *testing.T, srv *zktest.Server, writer *framework.Client, root string) *restoreRace {
	t.Helper()
	must(t, buildTreeOf(testCtx(t), writer, root, 4, 4))
	p := zktest.StartProxy(t, srv.ConnectString())
	// A third of the session timeout bounds the exchange that sets the
	// watch again: it must outlast the round trips of the proxy's latency.
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(9*time.Second))
	cc, replayed := startReplayed(t, c, root, cache.RecursiveWatch)
	awaitReplayedTree(t, writer, root, cc, replayed)
	return &restoreRace{p: p, c: c, root: root, cc: cc, replayed: replayed}
}

// readRequests counts the proxy's data reads: a getData, or a multiRead
// (a load under the recursive watch reads in multiRead batches).
func readRequests(p *zktest.Proxy) int64 {
	return p.RequestCount(zktest.OpGetData) + p.RequestCount(zktest.OpMultiRead)
}

// sever cuts the connection and waits until the proxy has read the
// addWatch that sets the watch again on the next one.
func (r *restoreRace) sever(t *testing.T) {
	t.Helper()
	sent := r.p.RequestCount(opAddWatch)
	r.p.Sever()
	zktest.Eventually(t, 20*time.Second, "the addWatch of the next connection", func() bool {
		return r.p.RequestCount(opAddWatch) > sent
	})
}

// change makes one change of each kind below root, tagged with step: a
// data change, a deleted subtree, a new subtree, a node deleted and created
// again with the same data.
func change(t *testing.T, writer *framework.Client, root string, step int) {
	t.Helper()
	ctx := testCtx(t)
	_, err := writer.SetData(ctx, root+"/p000", []byte(fmt.Sprint("step ", step)), -1)
	must(t, err)
	victim := fmt.Sprintf("%s/p%03d", root, 1+step%3)
	if st, err := writer.Exists(ctx, victim); err == nil && st != nil {
		must(t, writer.Delete(ctx, victim, framework.DeletingChildrenIfNeeded()))
	}
	_, err = writer.Create(ctx, fmt.Sprintf("%s/new%d/x", root, step), []byte("new"), framework.CreatingParentsIfNeeded())
	must(t, err)
	must(t, writer.Delete(ctx, root+"/p000/c000"))
	_, err = writer.Create(ctx, root+"/p000/c000", []byte("child"))
	must(t, err)
}

// awaitFollowing waits for the cache and its listener's replay to hold the
// server's tree, then checks that the server holds one watch for the cache
// and that the cache follows the next change.
func (r *restoreRace) awaitFollowing(t *testing.T, srv *zktest.Server, writer *framework.Client) {
	t.Helper()
	must(t, r.c.BlockUntilConnected(testCtx(t)))
	awaitReplayedTree(t, writer, r.root, r.cc, r.replayed)
	zktest.Eventually(t, 20*time.Second, "one watch, on "+r.root, func() bool {
		w := watchedBelow(t, srv, r.root)
		return len(w) == 1 && w[r.root] == 1
	})
	_, err := writer.Create(testCtx(t), r.root+"/p000/after", []byte("after"))
	must(t, err)
	awaitReplayedTree(t, writer, r.root, r.cc, r.replayed)
}

// A CuratorCache under a recursive watch, with changes made while the
// watch is being set again on a new connection: while its addWatch is
// unanswered (a slow server), when the reply to it is lost (the next
// connection sets it once more), and while the reload after the reset runs
// when the connection is cut again. Each time the cache and its listener
// end on the server's tree, with one watch on the server, following the
// next change; a Close during the reload leaves no watch on the server.
func TestCuratorCacheChangesWhileTheWatchIsSetAgain(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())

	t.Run("addWatch unanswered", func(t *testing.T) {
		r := startRestoreRace(t, srv, writer, "/unanswered")
		r.p.SetLatency(300 * time.Millisecond)
		r.sever(t)
		change(t, writer, r.root, 0) // before the server sets the watch
		must(t, r.c.BlockUntilConnected(testCtx(t)))
		change(t, writer, r.root, 1) // after
		r.p.SetLatency(0)
		r.awaitFollowing(t, srv, writer)
	})

	t.Run("addWatch reply lost", func(t *testing.T) {
		r := startRestoreRace(t, srv, writer, "/lostreply")
		r.p.LoseNextReply(opAddWatch)
		r.sever(t)
		zktest.Eventually(t, 20*time.Second, "the addWatch's reply lost", func() bool { return r.p.LostReplies() == 1 })
		change(t, writer, r.root, 0) // the server set the watch on a connection that ended
		r.awaitFollowing(t, srv, writer)
	})

	t.Run("cut during the reload", func(t *testing.T) {
		r := startRestoreRace(t, srv, writer, "/reload")
		r.p.SetLatency(20 * time.Millisecond) // the reload's reads take a few round trips
		for step := range 3 {
			reads := readRequests(r.p)
			r.sever(t)
			zktest.Eventually(t, 20*time.Second, "the reload under way", func() bool {
				return readRequests(r.p) > reads
			})
			change(t, writer, r.root, step)
		}
		r.p.SetLatency(0)
		r.awaitFollowing(t, srv, writer)
	})

	t.Run("close during the reload", func(t *testing.T) {
		r := startRestoreRace(t, srv, writer, "/closereload")
		r.p.SetLatency(20 * time.Millisecond)
		reads := readRequests(r.p)
		r.sever(t)
		zktest.Eventually(t, 20*time.Second, "the reload under way", func() bool {
			return readRequests(r.p) > reads
		})
		must(t, r.cc.Close())
		zktest.Eventually(t, 20*time.Second, "no watch at or below "+r.root, func() bool {
			return len(watchedBelow(t, srv, r.root)) == 0
		})
	})
}

// A CuratorCache's Close racing a cut connection, round after round: no
// watch of any round is left on the server once the client is connected
// again.
func TestCuratorCacheCloseRacingAReconnect(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	const root = "/closeracing"
	must(t, buildTreeOf(testCtx(t), writer, root, 2, 2))
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(4*time.Second))
	for round := range 4 {
		cc, err := cache.NewCuratorCache(c, root)
		must(t, err)
		must(t, cc.Start(testCtx(t)))
		if cc.Mode() != cache.RecursiveWatch {
			t.Fatalf("round %d: Mode() = %v", round, cc.Mode())
		}
		severed := make(chan struct{})
		go func() {
			defer close(severed)
			if round%2 == 1 {
				runtime.Gosched() // vary the race
			}
			p.Sever()
		}()
		must(t, cc.Close())
		<-severed
	}
	must(t, c.BlockUntilConnected(testCtx(t)))
	_, err := c.Exists(testCtx(t), "/") // behind the exchange of the last connection
	must(t, err)
	zktest.Eventually(t, 20*time.Second, "no watch at or below "+root, func() bool {
		return len(watchedBelow(t, srv, root)) == 0
	})
}
