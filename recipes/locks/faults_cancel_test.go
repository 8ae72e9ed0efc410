package locks_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Cancelled contexts: an acquisition given up returns the context's error,
// promptly even in a partition, and leaves no node, hold or watch behind.

// A cancelled acquisition returns the context's error, leaves no node and no
// hold behind, and does not disturb the holders or the waiters around it.
func TestLockRecipesCancelledAcquireLeavesNoNodes(t *testing.T) {
	srv := zktest.StartServer(t)
	observer := zkclient.New(t, srv.ConnectString())

	// cancelWaiting starts acquire with a context it cancels once waiting()
	// holds, and checks that acquire returns context.Canceled.
	cancelWaiting := func(t *testing.T, ctx context.Context, waiting func() bool, acquire func(context.Context) error) {
		t.Helper()
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		got := make(chan error, 1)
		go func() { got <- acquire(wctx) }()
		zktest.Eventually(t, 10*time.Second, "the acquirer waits", waiting)
		assertPending(t, got, "acquisition before the cancellation")
		cancel()
		if err := receive(t, got, "cancelled acquisition"); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled acquisition = %v, want context.Canceled", err)
		}
	}
	hasChildren := func(p string, n int) func() bool {
		return func() bool {
			got, err := childNames(context.Background(), observer, p)
			return err == nil && len(got) == n
		}
	}

	t.Run("writer waiting for a reader", func(t *testing.T) {
		const lockPath = "/rw-cancel-writer"
		ctx := zktest.TestContext(t)
		c := zkclient.New(t, srv.ConnectString())
		reader := built(locks.NewInterProcessReadWriteLock(c, lockPath)).ReadLock()
		writer := built(locks.NewInterProcessReadWriteLock(c, lockPath)).WriteLock()
		zktest.Must(t, reader.Acquire(ctx))
		cancelWaiting(t, ctx, hasChildren(lockPath, 2), writer.Acquire)
		if writer.IsAcquiredInThisProcess() || writer.LockPath() != "" {
			t.Fatal("the cancelled writer reports a hold")
		}
		awaitChildren(t, observer, lockPath, path.Base(reader.LockPath()))
		// No writer is queued any more: a later reader gets in at once.
		late := built(locks.NewInterProcessReadWriteLock(c, lockPath)).ReadLock()
		if ok, err := late.TryAcquire(ctx, 0); !ok || err != nil {
			t.Fatalf("a later reader's TryAcquire(0) after the writer gave up = %v, %v; want true", ok, err)
		}
		zktest.Must(t, late.Release(ctx))
		zktest.Must(t, reader.Release(ctx))
		awaitChildren(t, observer, lockPath)
	})

	t.Run("reader waiting for a writer", func(t *testing.T) {
		const lockPath = "/rw-cancel-reader"
		ctx := zktest.TestContext(t)
		c := zkclient.New(t, srv.ConnectString())
		writer := built(locks.NewInterProcessReadWriteLock(c, lockPath)).WriteLock()
		reader := built(locks.NewInterProcessReadWriteLock(c, lockPath)).ReadLock()
		zktest.Must(t, writer.Acquire(ctx))
		cancelWaiting(t, ctx, hasChildren(lockPath, 2), reader.Acquire)
		if reader.IsAcquiredInThisProcess() {
			t.Fatal("the cancelled reader reports a hold")
		}
		awaitChildren(t, observer, lockPath, path.Base(writer.LockPath()))
		zktest.Must(t, writer.Release(ctx))
		awaitChildren(t, observer, lockPath)
		zktest.Must(t, reader.Acquire(ctx))
		zktest.Must(t, reader.Release(ctx))
	})

	t.Run("semaphore acquirer queued on the internal lock", func(t *testing.T) {
		const semPath = "/sem-cancel-queued"
		ctx := zktest.TestContext(t)
		c := zkclient.New(t, srv.ConnectString())
		sem := built(locks.NewInterProcessSemaphoreV2(c, semPath, 1))
		var g gauge
		held, err := sem.Acquire(ctx)
		zktest.Must(t, err)
		g.add(1)
		got := acquireLease(ctx, sem, &g) // takes the internal lock and waits for a lease
		awaitCount(t, observer, semPath+"/leases", 2)
		lockNodes := awaitCount(t, observer, semPath+"/locks", 1)
		cancelWaiting(t, ctx, hasChildren(semPath+"/locks", 2), func(ctx context.Context) error {
			leases, err := sem.Acquire(ctx)
			if leases != nil {
				return fmt.Errorf("got a lease along with %v", err)
			}
			return err
		})
		awaitChildren(t, observer, semPath+"/locks", lockNodes...)
		awaitCount(t, observer, semPath+"/leases", 2)
		g.add(-1)
		zktest.Must(t, held.Close(ctx))
		r := receive(t, got, "the acquirer holding the internal lock")
		zktest.Must(t, r.err)
		awaitChildren(t, observer, semPath+"/leases", r.lease.NodeName())
		awaitChildren(t, observer, semPath+"/locks")
		zktest.Must(t, r.lease.Close(ctx))
		awaitChildren(t, observer, semPath+"/leases")
		assertMaxLeases(t, &g, 1)
	})

	t.Run("semaphore mutex waiting for a holder", func(t *testing.T) {
		const mutexPath = "/semmutex-cancel"
		ctx := zktest.TestContext(t)
		holder := built(locks.NewInterProcessSemaphoreMutex(zkclient.New(t, srv.ConnectString()), mutexPath))
		waiter := built(locks.NewInterProcessSemaphoreMutex(zkclient.New(t, srv.ConnectString()), mutexPath))
		zktest.Must(t, holder.Acquire(ctx))
		held := awaitCount(t, observer, mutexPath+"/leases", 1)
		cancelWaiting(t, ctx, hasChildren(mutexPath+"/leases", 2), waiter.Acquire)
		if waiter.IsAcquiredInThisProcess() {
			t.Fatal("the cancelled waiter reports holding")
		}
		if err := waiter.Release(ctx); !errors.Is(err, locks.ErrNotOwner) {
			t.Fatalf("Release after a cancelled Acquire = %v, want ErrNotOwner", err)
		}
		awaitChildren(t, observer, mutexPath+"/leases", held...)
		awaitChildren(t, observer, mutexPath+"/locks")
		zktest.Must(t, holder.Release(ctx))
		if ok, err := waiter.TryAcquire(ctx, 5*time.Second); !ok || err != nil {
			t.Fatalf("waiter's TryAcquire once free = %v, %v; want true", ok, err)
		}
		zktest.Must(t, waiter.Release(ctx))
		awaitChildren(t, observer, mutexPath+"/leases")
	})

	t.Run("context already cancelled", func(t *testing.T) {
		const base = "/cancelled-before"
		ctx := zktest.TestContext(t)
		c := zkclient.New(t, srv.ConnectString())
		done, cancel := context.WithCancel(ctx)
		cancel()
		rw := built(locks.NewInterProcessReadWriteLock(c, base+"/rw"))
		for name, acquire := range map[string]func() error{
			"read lock":  func() error { return rw.ReadLock().Acquire(done) },
			"write lock": func() error { return rw.WriteLock().Acquire(done) },
			"semaphore": func() error {
				_, err := built(locks.NewInterProcessSemaphoreV2(c, base+"/sem", 2)).Acquire(done)
				return err
			},
			"semaphore mutex": func() error { return built(locks.NewInterProcessSemaphoreMutex(c, base+"/semmutex")).Acquire(done) },
		} {
			if err := acquire(); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Acquire with a cancelled context = %v, want context.Canceled", name, err)
			}
		}
		awaitChildren(t, observer, base)
	})
}

// Attack: the downgrade's multi (check the write node, create the read node)
// succeeds on the server but its reply is lost, and the reader's ctx ends
// before the retry can find the node. createOwned drops the path on an
// error, so the downgrade cannot delete what it created: the read node stays
// for the rest of the pair's session, ahead of every queued writer. The
// contract says a cancelled Acquire leaves no node behind.
func TestCancelledDowngradeWithLostReplyLeavesNoReadNode(t *testing.T) {
	ctx := zktest.TestContext(t)
	const lockPath = "/review/downgrade-orphan"
	p, pairClient, admin, pair, foreign := proxiedPair(t, lockPath)

	zktest.Must(t, pair.WriteLock().Acquire(ctx))
	// A slow link keeps the client from reconnecting (and retrying the
	// multi) before the partition that follows the lost reply; the
	// partition holds the retry until the reader's ctx is cancelled.
	p.SetLatency(150 * time.Millisecond)
	p.LoseNextReply(zktest.OpMulti)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan error, 1)
	go func() { got <- pair.ReadLock().Acquire(rctx) }()
	zktest.Eventually(t, 10*time.Second, "the downgrade's reply lost", func() bool { return p.LostReplies() == 1 })
	p.Pause()
	cancel()
	if err := receive(t, got, "the cancelled downgrade"); err == nil {
		t.Fatal("the downgrade completed although its retry was held behind a partition")
	}
	p.Resume()
	p.SetLatency(0)
	zktest.Must(t, pair.WriteLock().Release(ctx))

	readNodes := func() []string {
		children, err := childNames(ctx, admin, lockPath) // the container may be gone
		zktest.Must(t, err)
		var out []string
		for _, c := range children {
			if strings.Contains(c, "__READ__") {
				out = append(out, c)
			}
		}
		return out
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(readNodes()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // polls the server: the delete runs in the background
	}
	if left := readNodes(); len(left) > 0 {
		stat, err := admin.Exists(ctx, path.Join(lockPath, left[0]))
		zktest.Must(t, err)
		held, err := foreign.TryAcquire(ctx, 500*time.Millisecond)
		zktest.Must(t, err)
		if held {
			zktest.Must(t, foreign.Release(ctx))
		}
		t.Fatalf("the cancelled downgrade left read node %v (owner 0x%x, the pair's session 0x%x) after every acquisition ended; a foreign writer acquires: %v",
			left, stat.EphemeralOwner, pairClient.SessionID(), held)
	}
}

// Attack: a waiter watches its predecessor's release signal; the predecessor
// gives up without one, an operator deletes the waiter's node, and the
// waiter's caller then gives up (ctx cancelled) while the holder still
// holds. fireLater may not fire the dropped signal then (the holder sorts
// before the predecessor), and nobody fires it later: the watch outlives
// every acquisition.
func TestNoSignalWatchOutlivesACancelledAcquisition(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const lockPath = "/review/signals-cancelled"
	admin := zkclient.New(t, srv.ConnectString())
	q := queueOfThree(t, srv, lockPath)
	holder, nodes := q.holder, q.nodes
	cancelMiddle, mgot, cancelWaiter, got := q.cancelMiddle, q.middleDone, q.cancelWaiter, q.waiterDone

	cancelMiddle()
	if err := receive(t, mgot, "the middle Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("middle Acquire: %v; want context.Canceled", err)
	}
	waitParticipants(t, holder, 2)
	zktest.Must(t, admin.Delete(ctx, nodes[2])) // an operator deletes the waiter's node
	zktest.Eventually(t, 10*time.Second, "the waiter queued again", func() bool {
		ps, err := holder.ParticipantNodes(ctx)
		return err == nil && len(ps) == 2 && ps[1] != nodes[2]
	})
	cancelWaiter()
	if err := receive(t, got, "the waiter's Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiter Acquire: %v; want context.Canceled", err)
	}
	zktest.Must(t, holder.Release(ctx))
	waitParticipants(t, holder, 0)

	// The signal is fired in the background once no contender sorts before
	// its predecessor, here as soon as the holder is gone.
	zktest.Eventually(t, 10*time.Second, "no release-signal watch left on "+lockPath, func() bool {
		for p := range perfWatchesByPath(t, srv) {
			if strings.HasSuffix(p, ".released") && path.Dir(p) == lockPath {
				return false
			}
		}
		return true
	})
}

// Attack: a waiter's ctx is cancelled while its connection is partitioned.
// The contract lets the node go by a guaranteed delete in the background when
// the connection is down; instead abandon waits for the connection for a full
// session timeout (60 s by default, and another one in fireLater when stale
// signals are pending) before Acquire returns its ctx error.
func TestCancelledAcquireReturnsPromptlyDuringAPartition(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const lockPath = "/review/cancel-partition"
	p := zktest.StartProxy(t, srv.ConnectString())
	holder := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath))
	waiter := built(locks.NewInterProcessMutex(zkclient.New(t, p.Addr(), framework.WithSessionTimeout(partitionSession)), lockPath))
	zktest.Must(t, holder.Acquire(ctx))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(wctx) }()
	waitParticipants(t, holder, 2)
	cancelDuringPartition(t, p, cancel, got)
	waitParticipants(t, holder, 1) // the waiter's node goes once the link is back
	zktest.Must(t, holder.Release(ctx))
}

// A cancelled waiter whose abandonment fired the release signal it watched
// leaves nothing to fire later: no background firing starts.
func TestCancelledWaiterFiresItsSignalOnce(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	q := queueOfThree(t, srv, "/cancel/signal-once")
	holder, signal := q.holder, q.signal
	cancelMiddle, mgot, cancelWaiter, got := q.cancelMiddle, q.middleDone, q.cancelWaiter, q.waiterDone

	cancelWaiter()
	if err := receive(t, got, "the waiter's Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiter Acquire: %v; want context.Canceled", err)
	}
	if goroutinesRunning("releaseSignals.fireLater") {
		t.Fatal("the waiter's abandonment fired its signal, and it is being fired again in the background")
	}
	if w := perfWatchesByPath(t, srv)[signal]; w != 0 {
		t.Fatalf("%d watches left on %s after the waiter gave up", w, signal)
	}
	cancelMiddle()
	if err := receive(t, mgot, "the middle Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("middle Acquire: %v; want context.Canceled", err)
	}
	zktest.Must(t, holder.Release(ctx))
}

// threeInLine is a holder, a middle contender waiting behind it and a waiter
// behind the middle one watching its release signal, each with a client of
// its own.
type threeInLine struct {
	holder                     *locks.InterProcessMutex
	nodes                      []string // the three nodes, in order
	signal                     string   // the middle node's release signal
	cancelMiddle, cancelWaiter context.CancelFunc
	middleDone, waiterDone     chan error // the Acquire results
}

// queueOfThree lines up three contenders on lockPath and returns once the
// waiter watches the middle node's release signal.
func queueOfThree(t *testing.T, srv *zktest.Server, lockPath string) threeInLine {
	t.Helper()
	ctx := zktest.TestContext(t)
	mutex := func() *locks.InterProcessMutex {
		return built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath))
	}
	q := threeInLine{holder: mutex(), middleDone: make(chan error, 1), waiterDone: make(chan error, 1)}
	middle, waiter := mutex(), mutex()
	zktest.Must(t, q.holder.Acquire(ctx))
	var mctx, wctx context.Context
	mctx, q.cancelMiddle = context.WithCancel(ctx)
	t.Cleanup(q.cancelMiddle)
	go func() { q.middleDone <- middle.Acquire(mctx) }()
	waitParticipants(t, q.holder, 2)
	wctx, q.cancelWaiter = context.WithCancel(ctx)
	t.Cleanup(q.cancelWaiter)
	go func() { q.waiterDone <- waiter.Acquire(wctx) }()
	q.nodes = waitParticipants(t, q.holder, 3)
	q.signal = q.nodes[1] + ".released"
	zktest.Eventually(t, 10*time.Second, "the waiter watching "+q.signal, func() bool {
		return perfWatchesByPath(t, srv)[q.signal] > 0
	})
	return q
}
