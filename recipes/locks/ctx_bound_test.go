package locks_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A caller's ctx bounds the whole call: a clean-up that must outlive the
// caller goes on in the background once the caller gives up.

// A Release whose ctx, without a deadline, is cancelled while its release
// transaction is slow returns within the clean-up's grace (at most a second)
// of the cancellation, not when the transaction's reply comes; the node goes
// all the same.
func TestReleaseIsBoundedByItsCancelledContext(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const lockPath = "/ctx-bound/release"
	proxy := zktest.StartProxy(t, srv.ConnectString())
	first := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath))
	slow := built(locks.NewInterProcessMutex(zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second)), lockPath))

	// A hold that waited behind another one releases with its signals
	// (engine_engine_release_signal.go), the clean-up that outlives a cancelled caller.
	zktest.Must(t, first.Acquire(ctx))
	acquired := make(chan error, 1)
	go func() { acquired <- slow.Acquire(ctx) }()
	// The holder's own watch on its node, and the second Acquire's.
	zktest.Eventually(t, 10*time.Second, "the second Acquire watches the holder's node", func() bool {
		watches, err := srv.WatchCounts(ctx)
		return err == nil && watches[first.LockPath()] > 1
	})
	zktest.Must(t, first.Release(ctx))
	zktest.Must(t, receive(t, acquired, "the second Acquire"))
	held := slow.LockPath()

	const oneWay = 2 * time.Second
	proxy.ResetCounts()
	proxy.SetLatency(oneWay)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	released := make(chan error, 1)
	go func() { released <- slow.Release(rctx) }()
	zktest.Eventually(t, 10*time.Second, "the release is on its way", func() bool {
		return proxy.RequestCount(zktest.OpMulti) > 0
	})
	cancel()
	cancelled := time.Now()
	err := receive(t, released, "Release")
	if took := time.Since(cancelled); took > oneWay {
		t.Errorf("Release returned %v after its ctx was cancelled, want within the clean-up's grace (1 s)", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Release with a cancelled ctx = %v, want an error matching context.Canceled", err)
	}
	proxy.SetLatency(0)
	zktest.Eventually(t, 10*time.Second, "the released node "+held+" is gone", func() bool {
		nodes, err := first.ParticipantNodes(ctx)
		return err == nil && len(nodes) == 0
	})
}

// A downgrade (the read lock taken by the holder of the write lock) reads the
// write hold's fencing token first; a TryAcquire of the read lock is bounded
// by its wait and the documented slack even while that read is slow, and
// leaves the write hold certain and no read node behind.
func TestDowngradeIsBoundedByItsWait(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const lockPath = "/ctx-bound/downgrade"
	proxy := zktest.StartProxy(t, srv.ConnectString())
	rw := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second)), lockPath))
	other := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), lockPath))
	zktest.Must(t, rw.WriteLock().Acquire(ctx))

	const oneWay = 2 * time.Second
	const wait = 200 * time.Millisecond
	proxy.SetLatency(oneWay)
	began := time.Now()
	ok, err := rw.ReadLock().TryAcquire(ctx, wait)
	took := time.Since(began)
	proxy.SetLatency(0)
	if took > wait+timedSlack {
		t.Errorf("the downgrade's TryAcquire(%v) returned after %v, want within its wait and slack (%v)", wait, took, wait+timedSlack)
	}
	assertPrefixOnce(t, err)
	if ok || (err != nil && !errors.Is(err, context.DeadlineExceeded)) {
		t.Errorf("the downgrade's TryAcquire(%v) = %v, %v; want false and nil or an error matching context.DeadlineExceeded", wait, ok, err)
	}
	select {
	case <-rw.WriteLock().Lost():
		t.Error("the write hold's Lost closed after a downgrade that ran out of time")
	default:
	}
	zktest.Eventually(t, 10*time.Second, "no read node is left", func() bool {
		nodes, err := other.ReadLock().ParticipantNodes(ctx)
		return err == nil && len(nodes) == 0
	})
	zktest.Must(t, rw.WriteLock().Release(ctx))
}

// A multi-lock's TryAcquire that gives back the locks it took once its wait
// ran out is bounded by its wait and the documented slack, however many
// locks it gives back: their releases share one clean-up grace rather than
// taking one each.
func TestMultiLockRollbackIsBoundedByItsWait(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	other := zkclient.New(t, srv.ConnectString())
	paths := []string{"/ctx-bound/multi/a", "/ctx-bound/multi/b", "/ctx-bound/multi/c"}
	held := unfairMutexes(c, paths...)
	const blockedPath = "/ctx-bound/multi/blocked"
	blocker := unfairMutexes(other, blockedPath)[0].(*locks.InterProcessMutex)
	zktest.Must(t, blocker.Acquire(ctx))
	multi := built(locks.NewInterProcessMultiLock(append(held, unfairMutexes(c, blockedPath)...)...))

	const wait = 3 * time.Second
	type outcome struct {
		ok   bool
		err  error
		took time.Duration
	}
	got := make(chan outcome, 1)
	began := time.Now()
	go func() {
		ok, err := multi.TryAcquire(ctx, wait)
		got <- outcome{ok, err, time.Since(began)}
	}()
	waitParticipants(t, blocker, 2) // the multi-lock waits for its last lock
	proxy.SetLatency(2 * time.Second)
	r := receive(t, got, "the multi-lock's TryAcquire")
	t.Logf("TryAcquire(%v) returned after %v: %v, %v", wait, r.took, r.ok, r.err)
	proxy.SetLatency(0)
	if r.took > wait+timedSlack {
		t.Errorf("the multi-lock's TryAcquire(%v) returned after %v, want within its wait and slack (%v)", wait, r.took, wait+timedSlack)
	}
	if r.ok {
		t.Error("the multi-lock's TryAcquire held every lock, though another client held its last")
	}
	for i, l := range held {
		if l.IsAcquiredInThisProcess() {
			t.Errorf("lock %d is still held after the multi-lock gave up", i)
		}
	}
	zktest.Must(t, blocker.Release(ctx))
	awaitNoChildren(t, other, append(paths, blockedPath)...)
}

// A multi-lock's Release whose ctx ends while the server is slow returns
// within one clean-up grace of its ctx, however many locks it releases; the
// locks' nodes go all the same.
func TestMultiLockReleaseIsBoundedByItsContext(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	admin := zkclient.New(t, srv.ConnectString())
	paths := []string{"/ctx-bound/release-multi/a", "/ctx-bound/release-multi/b", "/ctx-bound/release-multi/c"}
	multi := built(locks.NewInterProcessMultiLock(unfairMutexes(c, paths...)...))
	zktest.Must(t, multi.Acquire(ctx))

	proxy.SetLatency(2 * time.Second)
	const wait = 300 * time.Millisecond
	short, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	began := time.Now()
	err := multi.Release(short)
	took := time.Since(began)
	proxy.SetLatency(0)
	t.Logf("Release with a %v context returned after %v: %v", wait, took, err)
	if limit := wait + time.Second + 500*time.Millisecond; took > limit {
		t.Errorf("Release with a %v context returned after %v, want within one clean-up grace of it (%v)", wait, took, limit)
	}
	if multi.IsAcquiredInThisProcess() {
		t.Error("the multi-lock reports holding after its Release")
	}
	awaitNoChildren(t, admin, paths...)
}

// unfairMutexes returns a mutex of c on each path with the unfair driver,
// whose releases are clean-ups that outlive a caller who gave up
// (releaseWithHolder).
func unfairMutexes(c *framework.Client, paths ...string) []locks.Lock {
	mutexes := make([]locks.Lock, len(paths))
	for i, p := range paths {
		mutexes[i] = built(locks.NewInterProcessMutex(c, p, locks.WithDriver(locks.UnfairLockInternalsDriver{})))
	}
	return mutexes
}

// awaitNoChildren waits until none of paths has a child left (or is there),
// for as long as a holder node released in the background may take
// (releaseHoldingLater).
func awaitNoChildren(t *testing.T, c *framework.Client, paths ...string) {
	t.Helper()
	zktest.Eventually(t, 30*time.Second, fmt.Sprintf("no node left under %v", paths), func() bool {
		for _, p := range paths {
			if ch, err := childNames(context.Background(), c, p); err != nil || len(ch) > 0 {
				return false
			}
		}
		return true
	})
}

// A semaphore's TryAcquire whose wait ends while a request is slow returns
// within its wait and the documented slack: the release of the semaphore's
// lock in its clean-up takes no grace beyond the clean-up's own.
func TestSemaphoreCleanupIsBoundedByItsWait(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const semPath = "/ctx-bound/sem"
	proxy := zktest.StartProxy(t, srv.ConnectString())
	sem := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second)), semPath, 1))
	other := zkclient.New(t, srv.ConnectString())
	lease, err := built(locks.NewInterProcessSemaphoreV2(other, semPath, 1)).Acquire(ctx)
	zktest.Must(t, err)
	defer func() { _ = lease.Close(ctx) }()
	// The semaphore's own lock, held by another contender, makes our hold of
	// it one that waited: its release is a clean-up that outlives a caller
	// who gave up (engine_engine_release_signal.go).
	blocker := built(locks.NewInterProcessMutex(other, semPath+"/locks"))
	zktest.Must(t, blocker.Acquire(ctx))

	const wait = 5 * time.Second
	type outcome struct {
		leases []*locks.Lease
		err    error
		took   time.Duration
	}
	got := make(chan outcome, 1)
	began := time.Now()
	go func() {
		leases, err := sem.TryAcquire(ctx, 1, wait)
		got <- outcome{leases, err, time.Since(began)}
	}()
	zktest.Eventually(t, 10*time.Second, "our acquisition watches the semaphore lock's holder", func() bool {
		watches, err := srv.WatchCounts(ctx) // the holder's own, and ours
		return err == nil && watches[blocker.LockPath()] > 1
	})
	proxy.ResetCounts()
	zktest.Must(t, blocker.Release(ctx))
	zktest.Eventually(t, 10*time.Second, "our acquisition lists the leases", func() bool {
		return proxy.RequestCount(zktest.OpGetChildren2) > 0
	})
	// The change below wakes the waiter, whose next listing is still on
	// its way when the wait ends.
	proxy.SetLatency(3 * time.Second)
	_, err = other.Create(ctx, semPath+"/leases/wake", nil, framework.WithMode(framework.Ephemeral))
	zktest.Must(t, err)
	r := receive(t, got, "the semaphore's TryAcquire")
	proxy.SetLatency(0)
	t.Logf("TryAcquire(%v) returned after %v: %v", wait, r.took, r.err)
	if r.took > wait+timedSlack {
		t.Errorf("the semaphore's TryAcquire(%v) returned after %v, want within its wait and slack (%v)", wait, r.took, wait+timedSlack)
	}
	if r.leases != nil {
		t.Error("the semaphore's TryAcquire got a lease that another client holds")
	}
	zktest.Must(t, other.Delete(ctx, semPath+"/leases/wake"))
	zktest.Eventually(t, 30*time.Second, "only the other client's lease is left", func() bool {
		nodes, err := sem.ParticipantNodes(ctx)
		return err == nil && len(nodes) == 1 && nodes[0] == lease.Path()
	})
}
