package queue_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/testhook"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestExpiredConsumerNeverDeletesTheNextHoldersLock: consumer A's lock
// goes with its expired session while A could not reach the server, and B
// takes the item under a lock node of the same name. When A is connected
// again (in a new session), nothing A left pending deletes B's lock, so
// that neither A nor anyone else takes the item B is consuming.
func TestExpiredConsumerNeverDeletesTheNextHoldersLock(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	a := zkclient.New(t, proxy.Addr())
	b := zkclient.New(t, srv.ConnectString())
	observer := zkclient.New(t, srv.ConnectString())
	ctx := zktest.Context(t, queueWait)
	prod, err := queue.NewDistributedQueue(observer, "/stale", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	itemPath, err := prod.Put(ctx, "only")
	zktest.Must(t, err)
	lockNode := "/stale-locks/" + itemPath[len("/stale/"):]

	var ra, rb recorder
	aIn := make(chan struct{}, 1)
	first := true
	ra.block = func(ctx context.Context, _ string) error {
		if first { // the loop calls one item at a time
			first = false
			aIn <- struct{}{}
			<-ctx.Done()
			return context.Cause(ctx)
		}
		return nil
	}
	bIn, release := make(chan struct{}, 1), make(chan struct{})
	rb.block = func(ctx context.Context, _ string) error {
		bIn <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}
	start := func(c *framework.Client, r *recorder) {
		q, err := queue.NewDistributedQueue(c, "/stale", queue.JSON[string](), queue.WithLockPath("/stale-locks"), queue.WithConsumer(r.consume))
		zktest.Must(t, err)
		zktest.Must(t, q.Start(ctx))
		t.Cleanup(func() { _ = q.Close() })
	}
	start(a, &ra)
	select {
	case <-aIn:
	case <-time.After(20 * time.Second):
		t.Fatal("A took no item")
	}
	lost, stop := zkclient.LostSignal(a)
	defer stop()
	proxy.Pause() // A's ctx ends; its lock cannot be deleted; its session expires
	start(b, &rb)
	select {
	case <-bIn:
	case <-time.After(30 * time.Second):
		t.Fatal("B did not take the item once A's session expired")
	}
	select {
	case <-lost:
	case <-time.After(30 * time.Second):
		t.Fatal("A did not learn that its session was lost")
	}
	proxy.Resume()
	connected, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	zktest.Must(t, a.BlockUntilConnected(connected))
	// Let A's pending background work (guaranteed deletes) run out.
	resume := testhook.HoldBackground(a)
	select {
	case <-resume():
	case <-time.After(20 * time.Second):
		t.Fatal("A's background work did not finish")
	}
	stat, err := observer.Exists(ctx, lockNode)
	zktest.Must(t, err)
	if stat == nil || stat.EphemeralOwner != b.SessionID() {
		t.Errorf("B's lock node %s after A came back: %+v, want B's (session %#x)", lockNode, stat, b.SessionID())
	}
	close(release)
	awaitCount(t, 1, 20*time.Second, &ra, &rb)
	awaitEmpty(t, observer, "/stale", 20*time.Second)
	awaitEmpty(t, observer, "/stale-locks", 20*time.Second)
	exactlyOnce(t, []string{"only"}, &ra, &rb)
}

// TestLostUnlockReplyNeverDeletesTheNextHoldersLock: the reply to
// consumer A's lock deletion is lost (A closed mid-item, so the item
// stays); B, waiting on that lock, takes the item at once under a lock
// node of the same name. A's retry of the deletion finds that node is not
// its own and leaves it.
func TestLostUnlockReplyNeverDeletesTheNextHoldersLock(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	// Retries of A's requests wait a second or more: B has the lock by then.
	a := zkclient.NewWithPolicy(t, proxy.Addr(), retry.ExponentialBackoff{BaseSleep: time.Second, MaxSleep: 2 * time.Second, MaxRetries: 5},
		framework.WithSessionTimeout(10*time.Second), framework.WithConnectionTimeout(5*time.Second))
	b := zkclient.New(t, srv.ConnectString())
	observer := zkclient.New(t, srv.ConnectString())
	ctx := zktest.Context(t, queueWait)
	prod, err := queue.NewDistributedQueue(observer, "/lu", queue.JSON[string]())
	zktest.Must(t, err)
	zktest.Must(t, prod.Start(ctx))
	defer prod.Close()
	itemPath, err := prod.Put(ctx, "only")
	zktest.Must(t, err)
	lockNode := "/lu-locks/" + itemPath[len("/lu/"):]

	var ra, rb recorder
	aIn := make(chan struct{}, 1)
	ra.block = func(ctx context.Context, _ string) error {
		aIn <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}
	bIn, release := make(chan struct{}, 1), make(chan struct{})
	rb.block = func(ctx context.Context, _ string) error {
		bIn <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}
	qa, err := queue.NewDistributedQueue(a, "/lu", queue.JSON[string](), queue.WithLockPath("/lu-locks"), queue.WithConsumer(ra.consume))
	zktest.Must(t, err)
	zktest.Must(t, qa.Start(ctx))
	defer qa.Close()
	select {
	case <-aIn:
	case <-time.After(20 * time.Second):
		t.Fatal("A took no item")
	}
	qb, err := queue.NewDistributedQueue(b, "/lu", queue.JSON[string](), queue.WithLockPath("/lu-locks"), queue.WithConsumer(rb.consume))
	zktest.Must(t, err)
	zktest.Must(t, qb.Start(ctx))
	defer qb.Close()
	zktest.Eventually(t, 10*time.Second, "B to watch A's lock", func() bool {
		counts, err := srv.WatchCounts(ctx)
		return err == nil && counts[lockNode] > 0
	})
	proxy.LoseNextReply(zktest.OpDelete, zktest.OpMulti) // the lock's deletion
	zktest.Must(t, qa.Close())                           // A's item stays; its lock goes
	if proxy.LostReplies() != 1 {
		t.Fatalf("%d replies lost, want 1", proxy.LostReplies())
	}
	select {
	case <-bIn:
	case <-time.After(20 * time.Second):
		t.Fatal("B did not take the item")
	}
	stat, err := observer.Exists(ctx, lockNode)
	zktest.Must(t, err)
	if stat == nil || stat.EphemeralOwner != b.SessionID() {
		t.Errorf("B's lock node %s after A closed: %+v, want B's (session %#x)", lockNode, stat, b.SessionID())
	}
	close(release)
	awaitCount(t, 1, 20*time.Second, &ra, &rb)
	awaitEmpty(t, observer, "/lu", 20*time.Second)
	awaitEmpty(t, observer, "/lu-locks", 20*time.Second)
	exactlyOnce(t, []string{"only"}, &ra, &rb)
}

// TestFailedUnlockTriedAgainInTheSameSession: a lock node whose deletion
// could not be made (the server was down for longer than the deletion's
// budget, and the session outlived it: no simulated expiry) is deleted
// before the next listing once the server is back, so that the item it
// locked is taken again rather than held by a lock nobody will release.
func TestFailedUnlockTriedAgainInTheSameSession(t *testing.T) {
	srv := zktest.StartServer(t)
	core, logs := observer.New(zap.WarnLevel)
	c := zkclient.New(t, srv.ConnectString(), framework.WithSessionTimeout(4*time.Second),
		framework.WithSimulatedSessionExpirationPercent(0), framework.WithLogger(zap.New(core)))
	ctx := zktest.Context(t, queueWait)
	var r recorder
	aIn := make(chan struct{}, 1)
	first := true
	r.block = func(ctx context.Context, _ string) error {
		if first { // the loop calls one item at a time
			first = false
			aIn <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	}
	q, err := queue.NewDistributedQueue(c, "/fu", queue.JSON[string](), queue.WithLockPath("/fu-locks"), queue.WithConsumer(r.consume))
	zktest.Must(t, err)
	zktest.Must(t, q.Start(ctx))
	defer q.Close()
	_, err = q.Put(ctx, "only")
	zktest.Must(t, err)
	select {
	case <-aIn:
	case <-time.After(20 * time.Second):
		t.Fatal("no item taken")
	}
	zktest.Must(t, srv.Stop()) // the item's ctx ends; its lock cannot be deleted
	zktest.Eventually(t, 30*time.Second, "the lock's deletion to fail", func() bool {
		return logs.FilterMessageSnippet("tried again while its session lasts").Len() > 0
	})
	sid := c.SessionID()
	zktest.Must(t, srv.Restart())
	awaitCount(t, 1, 30*time.Second, &r)
	if c.SessionID() != sid {
		t.Fatalf("the session changed (%#x to %#x): the test needs it to survive", sid, c.SessionID())
	}
	awaitEmpty(t, c, "/fu", 10*time.Second)
	awaitEmpty(t, c, "/fu-locks", 10*time.Second)
	exactlyOnce(t, []string{"only"}, &r)
}
