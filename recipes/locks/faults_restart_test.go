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

// Server restarts within the session: holders keep their nodes and waiters
// keep waiting.

// restartWithinSession stops and restarts srv and waits until every client
// has reconnected on the session it had.
func restartWithinSession(t *testing.T, srv *zktest.Server, clients ...*framework.Client) {
	t.Helper()
	type watch struct {
		session int64
		states  chan framework.ConnectionState
		stop    func()
	}
	watches := make([]watch, len(clients))
	for i, c := range clients {
		states := make(chan framework.ConnectionState, 16)
		watches[i] = watch{session: c.SessionID(), states: states, stop: c.Listen(func(s framework.ConnectionState) {
			select {
			case states <- s:
			default:
			}
		})}
		defer watches[i].stop()
	}
	stopped := time.Now()
	zktest.Must(t, srv.Stop())
	zktest.Must(t, srv.Restart())
	t.Logf("restart took %v (slowest start %v)", time.Since(stopped), srv.SlowestStart())
	// A client that has not reconnected within its session reports Lost, so
	// waiting past the longest session only adds the redial.
	var longest time.Duration
	for _, c := range clients {
		longest = max(longest, c.SessionTimeout())
	}
	deadline := time.After(longest + 10*time.Second)
	for i, w := range watches {
	await:
		for {
			select {
			case s := <-w.states:
				switch s {
				case framework.Reconnected:
					break await
				case framework.Lost:
					t.Fatalf("client %d lost its session across a restart within it", i)
				}
			case <-deadline:
				t.Fatalf("client %d did not reconnect after the restart", i)
			}
		}
		if id := clients[i].SessionID(); id != w.session {
			t.Fatalf("client %d: session %x after the restart; want %x", i, id, w.session)
		}
	}
}

// assertNodeOfSession fails the test unless p exists and belongs to c's session.
func assertNodeOfSession(t *testing.T, c *framework.Client, p string) {
	t.Helper()
	stat, err := c.Exists(context.Background(), p)
	zktest.Must(t, err)
	if stat == nil || stat.EphemeralOwner != c.SessionID() {
		t.Fatalf("after the restart, %s: stat %+v; want a node of session %x", p, stat, c.SessionID())
	}
}

func TestMutexHolderSurvivesServerRestart(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString(), framework.WithSessionTimeout(srv.SessionOutlastingRestart(restartSession)), framework.WithErrorPolicy(framework.SessionErrorPolicy))
	m := built(locks.NewInterProcessMutex(c, "/restart"))
	zktest.Must(t, m.Acquire(ctx))
	ourNode := m.LockPath()
	zktest.Must(t, srv.Stop())
	zktest.Must(t, srv.Restart())
	zktest.Must(t, c.BlockUntilConnected(ctx))
	select {
	case <-m.Lost():
		t.Fatal("Lost() closed on a restart within the session (session error policy)")
	default:
	}
	stat, err := c.Exists(ctx, ourNode)
	zktest.Must(t, err)
	if stat == nil {
		t.Fatalf("lock node %s gone after a restart within the session", ourNode)
	}
	zktest.Must(t, m.Release(ctx))
	if stat, err := c.Exists(ctx, ourNode); err != nil || stat != nil {
		t.Fatalf("after Release, Exists(%s) = %v, %v; want absent", ourNode, stat, err)
	}
}

// Holders keep their nodes across a server restart within their session,
// waiters keep waiting, and the holders can release afterwards and hand over.
func TestLockRecipesSurviveServerRestart(t *testing.T) {
	srv := zktest.StartServer(t)
	// Each subtest restarts the server, so the slowest start so far (and with
	// it the session) grows with the load the restarts meet.
	newClient := func() *framework.Client {
		return zkclient.New(t, srv.ConnectString(), framework.WithSessionTimeout(srv.SessionOutlastingRestart(restartSession)), framework.WithErrorPolicy(framework.SessionErrorPolicy))
	}
	observer := zkclient.New(t, srv.ConnectString(), framework.WithSessionTimeout(srv.SessionOutlastingRestart(restartSession)))

	// rwCase: one pair holds one side of a read/write lock (the write side when
	// holdWrite) while another pair waits for the other side.
	rwCase := func(t *testing.T, lockPath string, holdWrite bool) {
		ctx := zktest.TestContext(t)
		hc, wc := newClient(), newClient()
		holder := built(locks.NewInterProcessReadWriteLock(hc, lockPath))
		waiter := built(locks.NewInterProcessReadWriteLock(wc, lockPath))
		hold, wait := holder.ReadLock(), waiter.WriteLock()
		var check locktest.Checker
		holdEnter, waitEnter := check.EnterShared, check.Enter
		if holdWrite {
			hold, wait = holder.WriteLock(), waiter.ReadLock()
			holdEnter, waitEnter = check.Enter, check.EnterShared
		}
		zktest.Must(t, hold.Acquire(ctx))
		leave := holdEnter()
		got, exits := acquireEntering(ctx, wait, waitEnter)
		awaitCount(t, observer, lockPath, 2)

		restartWithinSession(t, srv, hc, wc)
		assertNodeOfSession(t, hc, hold.LockPath())
		select {
		case <-hold.Lost():
			t.Fatal("Lost() closed by a restart within the session (session error policy)")
		default:
		}
		assertPending(t, got, "waiter's Acquire after the restart")
		awaitCount(t, observer, lockPath, 2)

		leave()
		zktest.Must(t, hold.Release(ctx))
		awaitResult(t, got, "waiter's Acquire once the holder released")
		awaitChildren(t, observer, lockPath, path.Base(wait.LockPath()))
		(<-exits)()
		zktest.Must(t, wait.Release(ctx))
		awaitChildren(t, observer, lockPath)
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
	}
	t.Run("read lock held, writer waiting", func(t *testing.T) { rwCase(t, "/rw-restart-read", false) })
	t.Run("write lock held, reader waiting", func(t *testing.T) { rwCase(t, "/rw-restart-write", true) })

	t.Run("semaphore leases held, acquirer waiting", func(t *testing.T) {
		const semPath, maxLeases = "/sem-restart", 2
		ctx := zktest.TestContext(t)
		hc, wc := newClient(), newClient()
		holder := built(locks.NewInterProcessSemaphoreV2(hc, semPath, maxLeases))
		waiter := built(locks.NewInterProcessSemaphoreV2(wc, semPath, maxLeases))
		var g gauge
		held, err := holder.AcquireN(ctx, maxLeases)
		zktest.Must(t, err)
		g.add(maxLeases)
		got := acquireLease(ctx, waiter, &g)
		awaitCount(t, observer, semPath+"/leases", maxLeases+1)
		awaitCount(t, observer, semPath+"/locks", 1)

		restartWithinSession(t, srv, hc, wc)
		for _, l := range held {
			assertNodeOfSession(t, hc, l.Path())
		}
		if len(got) != 0 {
			t.Fatal("the waiter returned after the restart while every lease is held")
		}
		awaitCount(t, observer, semPath+"/leases", maxLeases+1)

		g.add(-1)
		zktest.Must(t, held[0].Close(ctx))
		r := receive(t, got, "waiter's Acquire once a lease was returned")
		zktest.Must(t, r.err)
		awaitChildren(t, observer, semPath+"/leases", held[1].NodeName(), r.lease.NodeName())
		awaitChildren(t, observer, semPath+"/locks")
		g.add(-2)
		zktest.Must(t, held[1].Close(ctx))
		zktest.Must(t, r.lease.Close(ctx))
		awaitChildren(t, observer, semPath+"/leases")
		assertMaxLeases(t, &g, maxLeases)
	})

	t.Run("semaphore mutex held, acquirer waiting", func(t *testing.T) {
		const mutexPath = "/semmutex-restart"
		ctx := zktest.TestContext(t)
		hc, wc := newClient(), newClient()
		holder := built(locks.NewInterProcessSemaphoreMutex(hc, mutexPath))
		waiter := built(locks.NewInterProcessSemaphoreMutex(wc, mutexPath))
		var check locktest.Checker
		zktest.Must(t, holder.Acquire(ctx))
		leave := check.Enter()
		got, exits := acquireEntering(ctx, waiter, check.Enter)
		nodes := awaitCount(t, observer, mutexPath+"/leases", 2)

		restartWithinSession(t, srv, hc, wc)
		assertNodeOfSession(t, hc, mutexPath+"/leases/"+nodes[0])
		assertPending(t, got, "waiter's Acquire after the restart")
		if !holder.IsAcquiredInThisProcess() {
			t.Fatal("holder reports not holding after a restart within its session")
		}

		leave()
		zktest.Must(t, holder.Release(ctx))
		awaitResult(t, got, "waiter's Acquire once the holder released")
		awaitChildren(t, observer, mutexPath+"/leases", nodes[1])
		(<-exits)()
		zktest.Must(t, waiter.Release(ctx))
		awaitChildren(t, observer, mutexPath+"/leases")
		awaitChildren(t, observer, mutexPath+"/locks")
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
	})
}
