package locks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/testhook"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestTTLLockOrderings plays the orderings in which a persistent TTL lock
// with a caller-kept id could end up with two holders: a node deleted while
// its holder still holds, and another contender taking the lock while the
// first holder's Lost stays open. The server never reaps TTL nodes here, so a
// node stays exactly as long as a client leaves it.
func TestTTLLockOrderings(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes(), zktest.WithContainerCheckInterval(time.Hour))
	connect := srv.ConnectString()

	t.Run("StaleReleaseNeverEndsALaterHold", func(t *testing.T) {
		t.Parallel()
		const ttl = 900 * time.Millisecond // the lease ends 600 ms after its last refresh
		const path = "/ttl-orderings/stale-release"
		ctx := zktest.TestContext(t)
		proxy := zktest.StartProxy(t, connect)
		c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(6*time.Second),
			framework.WithErrorPolicy(framework.SessionErrorPolicy))
		d := newTTLDriver(t, ttl, locks.WithProtectedID(protection.NewID()))
		first := built(locks.NewInterProcessMutex(c, path, locks.WithDriver(d)))
		zktest.Must(t, first.Acquire(ctx))
		node := first.LockPath()

		proxy.Pause() // cut off for longer than the TTL: the driver gives the lease up
		if !closedWithin(d.NodeLost(node), ttl+5*time.Second) || !closedWithin(first.Lost(), 5*time.Second) {
			proxy.Resume()
			t.Fatal("the lease of a holder cut off for longer than its TTL was not given up")
		}
		paused := time.Now()
		zktest.Eventually(t, 5*time.Second, "a TTL passed in the partition", func() bool { return time.Since(paused) > ttl })
		proxy.Resume()
		zktest.Must(t, c.BlockUntilConnected(ctx))

		// A new handle of the same process contends with the same id and
		// driver; then the old handle does what its Lost asked for.
		second := built(locks.NewInterProcessMutex(c, path, locks.WithDriver(d)))
		_, secondErr := second.TryAcquire(ctx, 0)
		zktest.Must(t, first.Release(ctx))
		if !second.IsAcquiredInThisProcess() {
			// Refused while the first hold was unreleased: one id is one contender.
			if secondErr == nil || !strings.Contains(secondErr.Error(), "one id is one contender") {
				t.Fatalf("second handle's TryAcquire beside an unreleased given-up hold = %v; want the one-contender error", secondErr)
			}
			zktest.Must(t, second.Acquire(ctx))
		}
		assertSoleTTLHolder(t, connect, path, second)
		zktest.Must(t, second.Release(ctx))
	})

	t.Run("FailedCreateCleanupSparesTheNextHold", func(t *testing.T) {
		t.Parallel()
		const path = "/ttl-orderings/failed-create"
		const latency = 300 * time.Millisecond // one way: the create is in flight for a while
		ctx := zktest.TestContext(t)
		admin := zkclient.New(t, connect)
		_, err := admin.Create(ctx, path, nil, framework.CreatingParentsIfNeeded())
		zktest.Must(t, err)
		proxy, _, m, resume := heldQueueTTLMutex(t, connect, path)

		// The Acquire ends while its create is on the wire.
		proxy.SetLatency(latency)
		actx, cancel := context.WithCancel(ctx)
		got := make(chan error, 1)
		go func() { got <- m.Acquire(actx) }()
		zktest.Eventually(t, 10*time.Second, "the create on the wire", func() bool { return proxy.RequestCount(zktest.OpCreateTTL) > 0 })
		cancel()
		if err := <-got; !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire cancelled during its create = %v; want context.Canceled", err)
		}
		proxy.SetLatency(0)
		var late []string
		zktest.Eventually(t, 10*time.Second, "the cancelled create's node", func() bool {
			late, _, err = admin.Children(ctx, path)
			return err == nil && len(late) == 1
		})

		// The contender tries again at once and adopts that node, with the
		// failed create's clean-up still queued.
		zktest.Must(t, m.Acquire(ctx))
		if m.LockPath() != path+"/"+late[0] {
			t.Fatalf("the retry holds %s; want it to adopt the cancelled create's node %s", m.LockPath(), late[0])
		}
		<-resume()
		assertSoleTTLHolder(t, connect, path, m)
		zktest.Must(t, m.Release(ctx))
	})

	t.Run("PendingReleaseDeleteSparesTheReadoptedNode", func(t *testing.T) {
		t.Parallel()
		const path = "/ttl-orderings/pending-delete"
		ctx := zktest.TestContext(t)
		proxy, c, m, resume := heldQueueTTLMutex(t, connect, path)
		zktest.Must(t, m.Acquire(ctx))
		node := m.LockPath()

		// The release's delete never reaches the server: it is held, the
		// release gives up, and the connection drops with it.
		proxy.Pause()
		rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := m.Release(rctx)
		cancel()
		if err == nil {
			proxy.Resume()
			t.Fatal("Release through a paused connection succeeded")
		}
		proxy.Sever()
		proxy.Resume()
		zktest.Must(t, c.BlockUntilConnected(ctx))

		// The contender takes the lock again at once and adopts its node,
		// with the guaranteed delete still queued.
		zktest.Must(t, m.Acquire(ctx))
		if m.LockPath() != node {
			t.Fatalf("re-acquired %s; want the adopted %s", m.LockPath(), node)
		}
		<-resume()
		assertSoleTTLHolder(t, connect, path, m)
		zktest.Must(t, m.Release(ctx))
	})

	t.Run("LostComesAThirdOfATTLBeforeTheNodeMayGo", func(t *testing.T) {
		t.Parallel()
		const ttl = 3 * time.Second
		const path = "/ttl-orderings/margin"
		ctx := zktest.TestContext(t)
		proxy := zktest.StartProxy(t, connect)
		// Under the session policy a partition shorter than the session
		// leaves the lease as the holder's only signal.
		c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
			framework.WithErrorPolicy(framework.SessionErrorPolicy))
		m := built(locks.NewInterProcessMutex(c, path, locks.WithDriver(newTTLDriver(t, ttl))))
		zktest.Must(t, m.Acquire(ctx))
		node := m.LockPath()
		proxy.Pause()
		if !closedWithin(m.Lost(), 2*ttl) {
			proxy.Resume()
			t.Fatal("Lost stayed open in a partition longer than the TTL")
		}
		lostAt := time.Now()
		proxy.Sever() // what the partition held, refreshes included, never arrives
		proxy.Resume()
		_, stat, err := zkclient.New(t, connect).GetData(ctx, node)
		zktest.Must(t, err)
		// The server may delete the node a TTL after the last write it
		// applied; the holder must know well before (the server runs on
		// this host's clock).
		mayGo := time.UnixMilli(stat.Mtime).Add(ttl)
		if margin := mayGo.Sub(lostAt); margin < ttl/4 {
			t.Fatalf("Lost closed %v before the server may delete the node; want at least %v", margin, ttl/4)
		}
		zktest.Must(t, m.Release(ctx))
	})

	t.Run("ClosedClientsClaimLapsesAtOnce", func(t *testing.T) {
		t.Parallel()
		const path = "/ttl-orderings/closed-claim"
		ctx := zktest.TestContext(t)
		d := newTTLDriver(t, 30*time.Second, locks.WithProtectedID(protection.NewID())) // refreshes every 10 s
		c1 := zkclient.New(t, connect)
		first := built(locks.NewInterProcessMutex(c1, path, locks.WithDriver(d)))
		zktest.Must(t, first.Acquire(ctx))
		node := first.LockPath()
		zktest.Must(t, c1.Close())

		again := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path, locks.WithDriver(d)))
		if ok, err := again.TryAcquire(ctx, 0); !ok || err != nil {
			t.Fatalf("a new client's TryAcquire(0) through the driver right after the old client's Close = %v, %v; want true, nil", ok, err)
		}
		if again.LockPath() != node {
			t.Fatalf("new client holds %s; want the adopted %s", again.LockPath(), node)
		}
		if err := first.Release(ctx); err != nil {
			t.Fatalf("the closed client's Release = %v; want nil, touching nothing", err)
		}
		assertSoleTTLHolder(t, connect, path, again)
		zktest.Must(t, again.Release(ctx))
	})
}

// heldQueueTTLMutex returns a mutex on path under a TTL driver with a
// protected id (a TTL long enough never to be refreshed in a test), and its
// client c, which talks through proxy and has its background queue held until
// resume.
func heldQueueTTLMutex(t *testing.T, connect, path string) (*zktest.Proxy, *framework.Client, *locks.InterProcessMutex, func() <-chan struct{}) {
	proxy := zktest.StartProxy(t, connect)
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(6*time.Second))
	resume := testhook.HoldBackground(c)
	t.Cleanup(func() { resume() })
	d := newTTLDriver(t, 30*time.Second, locks.WithProtectedID(protection.NewID()))
	return proxy, c, built(locks.NewInterProcessMutex(c, path, locks.WithDriver(d))), resume
}

// assertSoleTTLHolder checks that holder holds the TTL lock at path alone:
// its Lost is open, its node exists, and a contender of another client cannot
// take the lock.
func assertSoleTTLHolder(t *testing.T, connect, path string, holder *locks.InterProcessMutex) {
	t.Helper()
	ctx := zktest.TestContext(t)
	node := holder.LockPath()
	other := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path, locks.WithDriver(newTTLDriver(t, 30*time.Second))))
	ok, err := other.TryAcquire(ctx, 500*time.Millisecond)
	if ok {
		_ = other.Release(ctx)
	}
	select {
	case <-holder.Lost():
		t.Fatalf("holder of %s reports Lost", node)
	default:
	}
	if !holder.IsAcquiredInThisProcess() || ok || err != nil {
		t.Fatalf("another client's TryAcquire while %s is held = %v, %v; want false, nil (two holders)", node, ok, err)
	}
	if stat, err := other.ParticipantNodes(ctx); err != nil || len(stat) == 0 || stat[0] != node {
		t.Fatalf("participants %v, %v; want the holder's node %s first", stat, err, node)
	}
}
