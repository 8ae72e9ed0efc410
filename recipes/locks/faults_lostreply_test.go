package locks_test

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Lost replies: the server applies a request but its reply is lost and the
// connection severed (zktest.Proxy.LoseNextReply). The client must find what
// it made rather than make it twice, and leave nothing behind.

// The reply to the lock node's create is lost (the server created it, the
// client saw connection loss): protected mode finds the node, and the lock is
// taken with exactly one node.
func TestMutexCreateReplyLost(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	m := built(locks.NewInterProcessMutex(c, "/lost-reply"))
	observer := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/lost-reply"))
	// Create the parent first so the armed create is the lock node's own.
	zktest.Must(t, m.Acquire(ctx))
	zktest.Must(t, m.Release(ctx))

	proxy.LoseNextReply(zktest.OpCreate, zktest.OpCreate2, zktest.OpCreateContainer)
	zktest.Must(t, m.Acquire(ctx))
	if proxy.LostReplies() != 1 {
		t.Fatalf("LostReplies() = %d, want 1", proxy.LostReplies())
	}
	if nodes := waitParticipants(t, observer, 1); nodes[0] != m.LockPath() {
		t.Fatalf("participants %v; want only our node %s", nodes, m.LockPath())
	}
	zktest.Must(t, m.Release(ctx))
	waitParticipants(t, observer, 0)
}

// The server creates a lock node but its reply is lost and the connection
// severed: protected mode finds the node on retry, so the acquisition succeeds
// with exactly one node of ours, and contenders still exclude each other.
func TestLockRecipesCreateReplyLost(t *testing.T) {
	srv := zktest.StartServer(t)
	observer := zkclient.New(t, srv.ConnectString())
	newProxied := func(t *testing.T) (*zktest.Proxy, *framework.Client) {
		proxy := zktest.StartProxy(t, srv.ConnectString())
		return proxy, zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(restartSession))
	}
	assertLostOne := func(t *testing.T, proxy *zktest.Proxy) {
		t.Helper()
		if n := proxy.LostReplies(); n != 1 {
			t.Fatalf("LostReplies() = %d, want 1", n)
		}
	}

	t.Run("write lock behind a reader", func(t *testing.T) {
		const lockPath = "/rw-lost-write"
		ctx := zktest.TestContext(t)
		proxy, c := newProxied(t)
		reader := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), lockPath)).ReadLock()
		writer := built(locks.NewInterProcessReadWriteLock(c, lockPath)).WriteLock()
		var check locktest.Checker
		zktest.Must(t, reader.Acquire(ctx))
		leave := check.EnterShared()

		proxy.LoseNextReply(createOps...)
		got, exits := acquireEntering(ctx, writer, check.Enter)
		zktest.Eventually(t, 10*time.Second, "the create's reply lost", func() bool { return proxy.LostReplies() == 1 })
		awaitCount(t, observer, lockPath, 2)
		assertPending(t, got, "writer's Acquire while a reader holds")

		leave()
		zktest.Must(t, reader.Release(ctx))
		awaitResult(t, got, "writer's Acquire once the reader released")
		assertLostOne(t, proxy)
		awaitChildren(t, observer, lockPath, path.Base(writer.LockPath()))
		(<-exits)()
		zktest.Must(t, writer.Release(ctx))
		awaitChildren(t, observer, lockPath)
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
	})

	t.Run("read lock beside a reader", func(t *testing.T) {
		const lockPath = "/rw-lost-read"
		ctx := zktest.TestContext(t)
		proxy, c := newProxied(t)
		other := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), lockPath)).ReadLock()
		reader := built(locks.NewInterProcessReadWriteLock(c, lockPath)).ReadLock()
		zktest.Must(t, other.Acquire(ctx))

		proxy.LoseNextReply(createOps...)
		zktest.Must(t, reader.Acquire(ctx))
		assertLostOne(t, proxy)
		awaitChildren(t, observer, lockPath, path.Base(other.LockPath()), path.Base(reader.LockPath()))
		zktest.Must(t, reader.Release(ctx))
		zktest.Must(t, other.Release(ctx))
		awaitChildren(t, observer, lockPath)
	})

	t.Run("downgrade read node", func(t *testing.T) {
		const lockPath = "/rw-lost-downgrade"
		ctx := zktest.TestContext(t)
		proxy, c := newProxied(t)
		rw := built(locks.NewInterProcessReadWriteLock(c, lockPath))
		zktest.Must(t, rw.WriteLock().Acquire(ctx))

		proxy.LoseNextReply(zktest.OpMulti) // the downgrade creates its node in a multi
		zktest.Must(t, rw.ReadLock().Acquire(ctx))
		assertLostOne(t, proxy)
		awaitChildren(t, observer, lockPath, path.Base(rw.WriteLock().LockPath()), path.Base(rw.ReadLock().LockPath()))
		zktest.Must(t, rw.WriteLock().Release(ctx))
		zktest.Must(t, rw.ReadLock().Release(ctx))
		awaitChildren(t, observer, lockPath)
	})

	// gated runs one acquisition through a proxy while another client holds
	// the semaphore's internal lock at semPath/locks, so that the test knows
	// which create comes next: the lock node's when loseLockCreate, otherwise
	// (once the acquirer's lock node exists) the lease node's. opened, if not
	// nil, runs once the gate is released and before the acquisition must
	// end. A duplicate node of ours would outlive the acquisition: every
	// caller checks the exact children afterwards.
	gated := func(t *testing.T, semPath string, loseLockCreate bool, acquire func(context.Context, *framework.Client) error, opened func()) {
		t.Helper()
		ctx := zktest.TestContext(t)
		proxy, c := newProxied(t)
		gate := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), semPath+"/locks"))
		zktest.Must(t, gate.Acquire(ctx))
		if loseLockCreate {
			proxy.LoseNextReply(createOps...)
		}
		got := make(chan error, 1)
		go func() { got <- acquire(ctx, c) }()
		awaitCount(t, observer, semPath+"/locks", 2)
		if loseLockCreate {
			zktest.Eventually(t, 10*time.Second, "the lock node's create reply lost", func() bool { return proxy.LostReplies() == 1 })
		} else {
			proxy.LoseNextReply(createOps...)
		}
		assertPending(t, got, "acquisition behind the gate")
		zktest.Must(t, gate.Release(ctx))
		if opened != nil {
			opened()
		}
		awaitResult(t, got, "acquisition once the gate opened")
		assertLostOne(t, proxy)
		awaitChildren(t, observer, semPath+"/locks")
	}

	t.Run("semaphore lease node", func(t *testing.T) {
		const semPath = "/sem-lost-lease"
		ctx := zktest.TestContext(t)
		other, err := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), semPath, 2)).Acquire(ctx)
		zktest.Must(t, err)
		var ours *locks.Lease
		gated(t, semPath, false, func(ctx context.Context, c *framework.Client) (err error) {
			ours, err = built(locks.NewInterProcessSemaphoreV2(c, semPath, 2)).Acquire(ctx)
			return err
		}, nil)
		awaitChildren(t, observer, semPath+"/leases", other.NodeName(), ours.NodeName())
		zktest.Must(t, ours.Close(ctx))
		zktest.Must(t, other.Close(ctx))
		awaitChildren(t, observer, semPath+"/leases")
	})

	t.Run("semaphore internal lock node", func(t *testing.T) {
		const semPath = "/sem-lost-lock"
		ctx := zktest.TestContext(t)
		var ours *locks.Lease
		gated(t, semPath, true, func(ctx context.Context, c *framework.Client) (err error) {
			ours, err = built(locks.NewInterProcessSemaphoreV2(c, semPath, 1)).Acquire(ctx)
			return err
		}, nil)
		awaitChildren(t, observer, semPath+"/leases", ours.NodeName())
		zktest.Must(t, ours.Close(ctx))
		awaitChildren(t, observer, semPath+"/leases")
	})

	t.Run("semaphore mutex lease node behind a holder", func(t *testing.T) {
		const mutexPath = "/semmutex-lost"
		ctx := zktest.TestContext(t)
		holder := built(locks.NewInterProcessSemaphoreMutex(zkclient.New(t, srv.ConnectString()), mutexPath))
		zktest.Must(t, holder.Acquire(ctx))
		held := awaitCount(t, observer, mutexPath+"/leases", 1)
		var check locktest.Checker
		leave := check.Enter()
		var ours *locks.InterProcessSemaphoreMutex
		exits := make(chan func(), 1)
		gated(t, mutexPath, false, func(ctx context.Context, c *framework.Client) error {
			ours = built(locks.NewInterProcessSemaphoreMutex(c, mutexPath))
			err := ours.Acquire(ctx)
			if err == nil {
				exits <- check.Enter()
			}
			return err
		}, func() {
			// Our lease node waits behind the holder's.
			awaitCount(t, observer, mutexPath+"/leases", 2)
			leave()
			zktest.Must(t, holder.Release(ctx))
		})
		(<-exits)()
		if nodes := awaitCount(t, observer, mutexPath+"/leases", 1); nodes[0] == held[0] {
			t.Fatalf("lease nodes %v; want only ours", nodes)
		}
		zktest.Must(t, ours.Release(ctx))
		awaitChildren(t, observer, mutexPath+"/leases")
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
	})
}

// Attack: the same lost reply without any cancellation. The pair's downgrade
// multi and its write release go out together; the server runs both, and the
// multi's reply is lost. Framework.Transaction retries the multi itself,
// without first looking for the node it may have created: the check of the
// (now deleted) write node fails with NoNode, the downgrade concludes that the
// write lock was released first and creates a second read node the standard
// way, behind the queued foreign writer. The first read node, with the write
// node's sequence, stays ahead of that writer: the writer waits for the
// orphan, the reader waits for the writer, and neither ever holds.
func TestDowngradeLostReplyRacingTheWriteReleaseNeitherDeadlocksNorOrphans(t *testing.T) {
	ctx := zktest.TestContext(t)
	const lockPath = "/review/downgrade-deadlock"
	p, _, admin, pair, foreign := proxiedPair(t, lockPath)

	zktest.Must(t, pair.WriteLock().Acquire(ctx))
	// The downgrade needs the write hold's fencing token; read it now, so
	// that the downgrade's first request under the pause is its multi.
	if pair.WriteLock().FencingToken() == 0 {
		t.Fatal("the write hold has no fencing token")
	}
	fctx, cancelForeign := context.WithTimeout(ctx, 10*time.Second)
	defer cancelForeign()
	fgot := make(chan error, 1)
	go func() {
		err := foreign.Acquire(fctx)
		if err == nil {
			err = foreign.Release(ctx)
		}
		fgot <- err
	}()
	waitParticipants(t, foreign, 2)

	// Hold the pair's traffic so that the multi and the write node's delete
	// reach the server back to back; the multi's reply is then lost.
	p.ResetCounts()
	p.LoseNextReply(zktest.OpMulti)
	p.Pause()
	rctx, cancelRead := context.WithTimeout(ctx, 4*time.Second)
	defer cancelRead()
	rgot := make(chan error, 1)
	go func() { rgot <- pair.ReadLock().Acquire(rctx) }()
	zktest.Eventually(t, 5*time.Second, "the downgrade multi sent", func() bool { return p.RequestCount(zktest.OpMulti) == 1 })
	wgot := make(chan error, 1)
	go func() { wgot <- pair.WriteLock().Release(ctx) }()
	zktest.Eventually(t, 5*time.Second, "the write node's delete sent", func() bool { return p.RequestCount(zktest.OpDelete) == 1 })
	p.Resume()
	awaitResult(t, wgot, "the write release")
	if p.LostReplies() != 1 {
		t.Fatalf("lost replies %d; want 1", p.LostReplies())
	}

	if err := receive(t, rgot, "the reader's Acquire"); err != nil {
		children, _, _ := admin.Children(ctx, lockPath)
		t.Fatalf("the reader never held after its downgrade's reply was lost (%v); nodes %v", err, children)
	}
	zktest.Must(t, pair.ReadLock().Release(ctx))
	if err := receive(t, fgot, "the foreign writer"); err != nil {
		children, _, _ := admin.Children(ctx, lockPath)
		t.Fatalf("the foreign writer never held after the reader released (%v); nodes %v", err, children)
	}
}
