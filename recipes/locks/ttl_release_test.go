package locks_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A release of a persistent TTL lock cut short after one of its refreshes
// landed unseen (the setData reached the server, its reply was lost with the
// connection) finds the node at a version it did not see. The release's ctx
// ends before the client connects again, so its delete goes on in the
// background; there it must still delete the version it reads back, as the
// foreground does, rather than give up on the stale one and leave the node
// to block every contender for the TTL and the server's container check.
// The server never reaps TTL nodes here: only the release can remove it.
func TestTTLReleaseCutShortAfterALandedRefreshLeavesNoNode(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes(), zktest.WithContainerCheckInterval(time.Hour))
	connect := srv.ConnectString()
	// A refresh every 6 s, and a lease given up 12 s after its last write:
	// each release below comes well before that, so it stops a live lease.
	// A session that outlasts the pause, so that the cut comes from the
	// lost reply alone.
	const ttl = 18 * time.Second
	const session = 10 * time.Second

	t.Run("Mutex", func(t *testing.T) {
		t.Parallel()
		const path = "/ttl-release/mutex"
		ctx := zktest.TestContext(t)
		proxy := zktest.StartProxy(t, connect)
		c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(session))
		m := built(locks.NewInterProcessMutex(c, path, locks.WithDriver(newTTLDriver(t, ttl, locks.WithProtectedID(protection.NewID())))))
		zktest.Must(t, m.Acquire(ctx))
		node := m.LockPath()

		cutNextRefresh(t, proxy)
		rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := m.Release(rctx)
		cancel()
		if err == nil {
			proxy.Resume()
			t.Fatal("a Release through a paused connection succeeded")
		}
		awaitNodeGoneAfterReconnect(t, proxy, c, connect, node)
	})

	t.Run("MultiLockRollback", func(t *testing.T) {
		t.Parallel()
		const path = "/ttl-release/multi"
		ctx := zktest.TestContext(t)
		// The multi-lock's second lock is held elsewhere, so its wait ends
		// and the rollback releases the first, a TTL lock.
		other := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path+"/b"))
		zktest.Must(t, other.Acquire(ctx))
		proxy := zktest.StartProxy(t, connect)
		c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(session))
		a := built(locks.NewInterProcessMutex(c, path+"/a", locks.WithDriver(newTTLDriver(t, ttl))))
		ml := built(locks.NewInterProcessMultiLock(a, built(locks.NewInterProcessMutex(c, path+"/b"))))

		// Only the TTL lock's node is refreshed: the next setData is its
		// first refresh, 6 s after the multi-lock took it. The wait ends
		// half a second later; with the graces of a connection the client
		// still believes live (a second for the request under way, a
		// second for the second lock's clean-up) the rollback comes 3 s
		// or more before the lease's end.
		proxy.LoseNextReply(zktest.OpSetData)
		got := make(chan timedResult, 1)
		go func() {
			start := time.Now()
			ok, err := ml.TryAcquire(ctx, 6500*time.Millisecond)
			got <- timedResult{"multi-lock", ok, err, time.Since(start)}
		}()
		zktest.Eventually(t, 10*time.Second, "the TTL lock's refresh on the wire", func() bool {
			return proxy.RequestCount(zktest.OpSetData) > 0
		})
		proxy.Pause()
		nodes := awaitCount(t, zkclient.New(t, connect), path+"/a", 1)
		r := receive(t, got, "the multi-lock's TryAcquire")
		if r.ok {
			t.Fatal("the multi-lock took a lock held elsewhere")
		}
		awaitNodeGoneAfterReconnect(t, proxy, c, connect, path+"/a/"+nodes[0])
		zktest.Must(t, other.Release(ctx))
	})
}

// cutNextRefresh arms proxy to lose the reply of the next setData (a TTL
// lock's refresh), and pauses it once that request is on the wire: the
// refresh lands on the server, the client never learns it did, and it
// stays cut off until awaitNodeGoneAfterReconnect resumes the proxy.
func cutNextRefresh(t *testing.T, proxy *zktest.Proxy) {
	t.Helper()
	sent := proxy.RequestCount(zktest.OpSetData)
	proxy.LoseNextReply(zktest.OpSetData)
	zktest.Eventually(t, 10*time.Second, "a refresh on the wire", func() bool {
		return proxy.RequestCount(zktest.OpSetData) > sent
	})
	proxy.Pause()
}

// awaitNodeGoneAfterReconnect resumes proxy, waits until c is connected
// again, and fails the test unless node is gone within a few seconds.
func awaitNodeGoneAfterReconnect(t *testing.T, proxy *zktest.Proxy, c *framework.Client, connect, node string) {
	t.Helper()
	ctx := zktest.TestContext(t)
	proxy.Resume()
	zktest.Eventually(t, 10*time.Second, "the refresh's reply lost", func() bool { return proxy.LostReplies() == 1 })
	zktest.Must(t, c.BlockUntilConnected(ctx))
	admin := zkclient.New(t, connect)
	zktest.Eventually(t, 5*time.Second, "the released node "+node+" gone", func() bool {
		stat, err := admin.Exists(ctx, node)
		return err == nil && stat == nil
	})
}
