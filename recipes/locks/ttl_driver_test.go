package locks_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// reapInterval is how often the test server deletes expired TTL nodes.
const reapInterval = 100 * time.Millisecond

func newTTLDriver(t *testing.T, ttl time.Duration, opts ...locks.TTLDriverOption) *locks.PersistentTTLLockInternalsDriver {
	t.Helper()
	d, err := locks.NewPersistentTTLLockInternalsDriver(ttl, opts...)
	if err != nil {
		t.Fatalf("NewPersistentTTLLockInternalsDriver(%v): %v", ttl, err)
	}
	return d
}

func TestNewPersistentTTLLockInternalsDriverRejectsBadInput(t *testing.T) {
	maxTTL := time.Duration(0xFFFFFFFFFF) * time.Millisecond
	for _, tc := range []struct {
		ttl  time.Duration
		want string
	}{
		{0, "must be positive"},
		{-time.Second, "must be positive"},
		{1500 * time.Microsecond, "whole milliseconds"},
		{maxTTL + time.Millisecond, "maximum TTL"},
		{time.Duration(1<<63 - 1), "maximum TTL"},
	} {
		d, err := locks.NewPersistentTTLLockInternalsDriver(tc.ttl)
		if err == nil || d != nil {
			t.Errorf("TTL %v: got driver %v, error %v; want an error", tc.ttl, d, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.ttl.String()) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("TTL %v: error %q does not name the value and say %q", tc.ttl, err, tc.want)
		}
	}
	for _, ttl := range []time.Duration{time.Millisecond, maxTTL} {
		if d, err := locks.NewPersistentTTLLockInternalsDriver(ttl); err != nil || d.TTL() != ttl {
			t.Errorf("TTL %v: got %v, %v; want a driver with that TTL", ttl, d, err)
		}
	}
	for _, id := range []string{"not-a-uuid", "0123456789abcdef0123456789abcdef"} {
		_, err := locks.NewPersistentTTLLockInternalsDriver(time.Second, locks.WithProtectedID(id))
		if err == nil || !strings.Contains(err.Error(), id) {
			t.Errorf("protected id %q: error %v; want one naming the id", id, err)
		}
	}
	id := protection.NewID()
	if d, err := locks.NewPersistentTTLLockInternalsDriver(time.Second, locks.WithProtectedID(id)); err != nil || d.ProtectedID() != id {
		t.Errorf("protected id %q: got %v, %v", id, d, err)
	}
}

// TestPersistentTTLLock runs the lease's behaviours in parallel on one
// server that reaps expired TTL nodes every reapInterval.
func TestPersistentTTLLock(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes(), zktest.WithContainerCheckInterval(reapInterval))
	connect := srv.ConnectString()

	t.Run("ZeroValueFailsBeforeAnyRequest", func(t *testing.T) {
		t.Parallel()
		proxy, err := zktest.NewProxy(connect)
		zktest.Must(t, err)
		t.Cleanup(func() { _ = proxy.Close() })
		c := zkclient.New(t, proxy.Addr())
		proxy.ResetCounts()
		m := built(locks.NewInterProcessMutex(c, "/ttl/zero", locks.WithDriver(&locks.PersistentTTLLockInternalsDriver{})))
		err = m.Acquire(zktest.TestContext(t))
		if err == nil || !strings.Contains(err.Error(), "NewPersistentTTLLockInternalsDriver") {
			t.Fatalf("Acquire with a zero driver = %v; want an error pointing to the constructor", err)
		}
		for _, op := range []zktest.Op{zktest.OpCreate, zktest.OpCreate2, zktest.OpCreateTTL, zktest.OpCreateContainer,
			zktest.OpExists, zktest.OpGetData, zktest.OpSetData, zktest.OpGetChildren, zktest.OpGetChildren2,
			zktest.OpDelete, zktest.OpMulti} {
			if n := proxy.RequestCount(op); n != 0 {
				t.Errorf("%d %v requests sent", n, op)
			}
		}
	})

	t.Run("SurvivesHolderRestartWithItsID", func(t *testing.T) {
		t.Parallel()
		const ttl = 4 * time.Second // never waited out here: room for a restart under -race
		const path = "/ttl/restart"
		ctx := zktest.TestContext(t)
		id := protection.NewID()

		c1 := zkclient.New(t, connect)
		first := built(locks.NewInterProcessMutex(c1, path,
			locks.WithDriver(newTTLDriver(t, ttl, locks.WithProtectedID(id))), locks.WithLockData([]byte("incarnation-1"))))
		zktest.Must(t, first.Acquire(ctx))
		node, token := first.LockPath(), first.FencingToken()
		firstLost := first.Lost()
		zktest.Must(t, c1.Close()) // the holder's process goes away without releasing

		admin := zkclient.New(t, connect)
		other := built(locks.NewInterProcessMutex(admin, path, locks.WithDriver(newTTLDriver(t, ttl))))
		if ok, err := other.TryAcquire(ctx, 200*time.Millisecond); ok || err != nil {
			t.Fatalf("another client's TryAcquire after the holder's Close = %v, %v; want false, nil", ok, err)
		}

		again := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path,
			locks.WithDriver(newTTLDriver(t, ttl, locks.WithProtectedID(id))), locks.WithLockData([]byte("incarnation-2"))))
		if ok, err := again.TryAcquire(ctx, 0); !ok || err != nil {
			t.Fatalf("restarted holder's TryAcquire(0) = %v, %v; want true, nil", ok, err)
		}
		if again.LockPath() != node {
			t.Fatalf("restarted holder holds %s, want its old node %s", again.LockPath(), node)
		}
		if got := again.FencingToken(); got != token {
			t.Fatalf("fencing token after restart = %d, want the same lease's %d", got, token)
		}
		data, _, err := admin.GetData(ctx, node)
		zktest.Must(t, err)
		if string(data) != "incarnation-2" {
			t.Fatalf("adopted node's data = %q, want the new holder's", data)
		}
		if ok, err := other.TryAcquire(ctx, 200*time.Millisecond); ok || err != nil {
			t.Fatalf("another client's TryAcquire after the restart = %v, %v; want false, nil", ok, err)
		}

		zktest.Must(t, again.Release(ctx))
		if ok, err := other.TryAcquire(ctx, 5*time.Second); !ok || err != nil {
			t.Fatalf("TryAcquire after the restarted holder's release = %v, %v; want true, nil", ok, err)
		}
		zktest.Must(t, other.Release(ctx))
		if !closedWithin(firstLost, ttl) {
			t.Fatal("the closed client's hold never reported Lost")
		}
	})

	t.Run("FreesItselfAfterTheTTL", func(t *testing.T) {
		t.Parallel()
		const ttl = time.Second
		const path = "/ttl/crash"
		ctx := zktest.TestContext(t)
		c1 := zkclient.New(t, connect)
		crashed := built(locks.NewInterProcessMutex(c1, path, locks.WithDriver(newTTLDriver(t, ttl))))
		zktest.Must(t, crashed.Acquire(ctx))
		node, lost := crashed.LockPath(), crashed.Lost()
		zktest.Must(t, c1.Close())
		closed := time.Now()

		c2 := zkclient.New(t, connect)
		next := built(locks.NewInterProcessMutex(c2, path, locks.WithDriver(newTTLDriver(t, ttl))))
		if ok, err := next.TryAcquire(ctx, 0); ok || err != nil {
			t.Fatalf("TryAcquire(0) right after the holder's Close = %v, %v; want false, nil", ok, err)
		}
		zktest.Must(t, next.Acquire(ctx))
		elapsed := time.Since(closed)
		// The node was refreshed at most TTL/3 before the Close, so it cannot
		// expire before 2/3 of the TTL; it goes once the TTL and a reap pass are over.
		if elapsed < ttl/2 || elapsed > ttl+reapInterval+3*time.Second {
			t.Fatalf("the abandoned lock was acquired %v after its holder stopped; want about its TTL of %v", elapsed, ttl)
		}
		if stat, err := c2.Exists(ctx, node); err != nil || stat != nil {
			t.Fatalf("Exists(abandoned node) = %v, %v; want it gone", stat, err)
		}
		zktest.Must(t, next.Release(ctx))
		if !closedWithin(lost, ttl) {
			t.Fatal("the closed client's hold never reported Lost")
		}
	})

	t.Run("OutlivesSeveralTTLsWhileHeldAndWaiting", func(t *testing.T) {
		t.Parallel()
		const ttl = time.Second
		const path = "/ttl/refresh"
		ctx := zktest.TestContext(t)
		admin := zkclient.New(t, connect)
		holder := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path, locks.WithDriver(newTTLDriver(t, ttl))))
		waiter := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path, locks.WithDriver(newTTLDriver(t, ttl))))
		zktest.Must(t, holder.Acquire(ctx))
		got := make(chan error, 1)
		go func() { got <- waiter.Acquire(ctx) }()
		var nodes []string
		zktest.Eventually(t, 10*time.Second, "the waiter queued", func() bool {
			var err error
			nodes, err = holder.ParticipantNodes(ctx)
			return err == nil && len(nodes) == 2
		})

		until := time.Now().Add(7 * ttl / 2)
		for time.Now().Before(until) { // bounded by time: the TTL has to pass several times
			for _, n := range nodes {
				if stat, err := admin.Exists(ctx, n); err != nil || stat == nil {
					t.Fatalf("Exists(%s) = %v, %v after %v; want the refreshed node", n, stat, err, time.Until(until))
				}
			}
			select {
			case <-holder.Lost():
				t.Fatal("holder's Lost closed while its lease was being refreshed")
			case err := <-got:
				t.Fatalf("waiter acquired (err %v) while the holder held", err)
			case <-time.After(100 * time.Millisecond):
			}
		}

		zktest.Must(t, holder.Release(ctx))
		zktest.Must(t, <-got)
		if waiter.LockPath() != nodes[1] {
			t.Fatalf("waiter holds %s, want the node it queued with, %s", waiter.LockPath(), nodes[1])
		}
		zktest.Must(t, waiter.Release(ctx))
	})

	t.Run("DeletedNodeEndsHoldAndRequeuesWaiter", func(t *testing.T) {
		t.Parallel()
		const ttl = 900 * time.Millisecond // a refresh every 300 ms finds the deletion
		const path = "/ttl/deleted"
		ctx := zktest.TestContext(t)
		admin := zkclient.New(t, connect)
		holder := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path, locks.WithDriver(newTTLDriver(t, ttl))))
		waiter := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path, locks.WithDriver(newTTLDriver(t, ttl))))
		zktest.Must(t, holder.Acquire(ctx))
		got := make(chan error, 1)
		go func() { got <- waiter.Acquire(ctx) }()
		var nodes []string
		zktest.Eventually(t, 10*time.Second, "the waiter queued", func() bool {
			var err error
			nodes, err = holder.ParticipantNodes(ctx)
			return err == nil && len(nodes) == 2
		})

		zktest.Must(t, admin.Delete(ctx, nodes[1])) // the waiter's node
		zktest.Eventually(t, 5*time.Second, "the waiter queued again with a new node", func() bool {
			now, err := holder.ParticipantNodes(ctx)
			return err == nil && len(now) == 2 && now[0] == nodes[0] && now[1] != nodes[1]
		})
		select {
		case err := <-got:
			t.Fatalf("waiter acquired (err %v) while the holder held", err)
		default:
		}

		lost := holder.Lost()
		zktest.Must(t, admin.Delete(ctx, nodes[0])) // the holder's node
		if !closedWithin(lost, ttl/3+3*time.Second) {
			t.Fatal("holder's Lost stayed open after its node was deleted")
		}
		zktest.Must(t, <-got) // the deletion also handed the lock on
		zktest.Must(t, holder.Release(ctx))
		zktest.Must(t, waiter.Release(ctx))
	})

	t.Run("PartitionedHolderLearnsItsLeaseEnded", func(t *testing.T) {
		t.Parallel()
		const ttl = time.Second
		const path = "/ttl/partition"
		ctx := zktest.TestContext(t)
		proxy, err := zktest.NewProxy(connect)
		zktest.Must(t, err)
		t.Cleanup(func() { _ = proxy.Close() })
		// Under the session error policy a short partition does not end the
		// hold by itself: only the lease, a TTL without a refresh, does.
		holder := built(locks.NewInterProcessMutex(
			zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second), framework.WithErrorPolicy(framework.SessionErrorPolicy)),
			path, locks.WithDriver(newTTLDriver(t, ttl))))
		zktest.Must(t, holder.Acquire(ctx))
		lost := holder.Lost()
		proxy.Pause()
		paused := time.Now()
		if !closedWithin(lost, ttl+2*time.Second) {
			proxy.Resume()
			t.Fatal("holder's Lost stayed open although its lease could not be refreshed for a TTL")
		}
		// The lease ends two thirds of a TTL after its last refresh, which
		// came at most a third of a TTL before the pause.
		if since := time.Since(paused); since < ttl/4 {
			proxy.Resume()
			t.Fatalf("Lost closed %v into the partition, before the lease could have run out", since)
		}
		other := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path, locks.WithDriver(newTTLDriver(t, ttl))))
		ok, err := other.TryAcquire(ctx, 5*time.Second)
		proxy.Resume()
		if !ok || err != nil {
			t.Fatalf("TryAcquire while the old holder is cut off = %v, %v; want the expired lease to free the lock", ok, err)
		}
		if err := holder.Release(ctx); err != nil {
			t.Fatalf("old holder's Release after the partition = %v", err)
		}
		if !other.IsAcquiredInThisProcess() {
			t.Fatal("the old holder's Release undid the new holder's lock")
		}
		zktest.Must(t, other.Release(ctx))
	})

	t.Run("RefreshKeepsRevocationRequest", func(t *testing.T) {
		t.Parallel()
		const ttl = 600 * time.Millisecond // a refresh every 200 ms
		const path = "/ttl/revoke"
		ctx := zktest.TestContext(t)
		admin := zkclient.New(t, connect)
		m := built(locks.NewInterProcessMutex(zkclient.New(t, connect), path,
			locks.WithDriver(newTTLDriver(t, ttl)), locks.WithLockData([]byte("worker-7"))))
		revoked := make(chan struct{})
		m.MakeRevocable(func() { close(revoked) })
		zktest.Must(t, m.Acquire(ctx))
		node := m.LockPath()
		zktest.Must(t, locks.AttemptRevoke(ctx, admin, node))
		_, stat, err := admin.GetData(ctx, node)
		zktest.Must(t, err)
		revokedAt := stat.Version
		if !closedWithin(revoked, 5*time.Second) {
			t.Fatal("revocation listener not called")
		}
		zktest.Eventually(t, 5*time.Second, "a refresh after the revocation request", func() bool {
			_, stat, err := admin.GetData(ctx, node)
			return err == nil && stat.Version > revokedAt+1
		})
		data, _, err := admin.GetData(ctx, node)
		zktest.Must(t, err)
		if string(data) != locks.RevokeMessage {
			t.Fatalf("node data after refreshes = %q, want the revocation request %q kept", data, locks.RevokeMessage)
		}
		zktest.Must(t, m.Release(ctx))
	})

	t.Run("OneIDIsOneContender", func(t *testing.T) {
		t.Parallel()
		const path = "/ttl/one-id"
		ctx := zktest.TestContext(t)
		c := zkclient.New(t, connect)
		d := newTTLDriver(t, 2*time.Second, locks.WithProtectedID(protection.NewID()))
		a := built(locks.NewInterProcessMutex(c, path, locks.WithDriver(d)))
		b := built(locks.NewInterProcessMutex(c, path, locks.WithDriver(d)))
		zktest.Must(t, a.Acquire(ctx))
		if ok, err := b.TryAcquire(ctx, 0); ok || err == nil || !strings.Contains(err.Error(), "one id is one contender") {
			t.Fatalf("second handle on the same id = %v, %v; want an error", ok, err)
		}
		if p, err := d.CreatesTheLock(ctx, c, path+"/__READ__", nil); err == nil || !strings.Contains(err.Error(), "one id per lock name") {
			t.Fatalf("another lock name with the same id under %s = %q, %v; want an error", path, p, err)
		}
		nodes, err := a.ParticipantNodes(ctx)
		zktest.Must(t, err)
		if len(nodes) != 1 {
			t.Fatalf("participants after refused contenders = %v, want only the holder", nodes)
		}
		zktest.Must(t, a.Release(ctx))
		if ok, err := b.TryAcquire(ctx, 0); !ok || err != nil {
			t.Fatalf("second handle after the first released = %v, %v; want true, nil", ok, err)
		}
		zktest.Must(t, b.Release(ctx))
	})
}

// A lease that survives a restart of its holder: the id is kept in storage
// that only this instance of the service owns, and given back on restart.
func ExampleNewPersistentTTLLockInternalsDriver() {
	ctx := context.Background()
	client, err := framework.NewClient("127.0.0.1:2181", retry.ExponentialBackoff{BaseSleep: 100 * time.Millisecond, MaxSleep: 5 * time.Second, MaxRetries: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	if err := client.Start(); err != nil {
		fmt.Println(err)
		return
	}

	id := protection.NewID() // in a real service: loaded from, or saved to, its own storage
	driver, err := locks.NewPersistentTTLLockInternalsDriver(30*time.Second, locks.WithProtectedID(id))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := built(locks.NewInterProcessMutex(client, "/jobs/nightly-report", locks.WithDriver(driver)))
	if err := m.Acquire(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer func() {
		if err := m.Release(ctx); err != nil && !errors.Is(err, locks.ErrNotOwner) {
			fmt.Println(err)
		}
	}()
	select {
	case <-m.Lost():
		fmt.Println("the lease ended; stop the work")
	default:
		fmt.Println("holding", m.LockPath())
	}
}
