package locks_test

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Attacks of an outside review on the lock core's session rule, atomic
// downgrade, fencing tokens and release-signal watches. Each test states the
// interleaving it forces.

// proxiedPair returns a read/write lock pair on lockPath whose client talks
// through a proxy, an admin client and a foreign writer, on a server of
// their own.
func proxiedPair(t *testing.T, lockPath string) (*zktest.Proxy, *framework.Client, *framework.Client, *locks.InterProcessReadWriteLock, *locks.InterProcessMutex) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	pairClient := locktest.NewClient(t, p.Addr())
	admin := locktest.NewClient(t, srv.ConnectString())
	pair := locks.NewInterProcessReadWriteLock(pairClient, lockPath)
	foreign := locks.NewInterProcessReadWriteLock(locktest.NewClient(t, srv.ConnectString()), lockPath).WriteLock()
	return p, pairClient, admin, pair, foreign
}

// Attack: the downgrade's multi (check the write node, create the read node)
// succeeds on the server but its reply is lost, and the reader's ctx ends
// before the retry can find the node. createOwned drops the path on an
// error, so the downgrade cannot delete what it created: the read node stays
// for the rest of the pair's session, ahead of every queued writer. The
// contract says a cancelled Acquire leaves no node behind.
func TestReviewCancelledDowngradeWithLostReplyLeavesNoReadNode(t *testing.T) {
	ctx := testCtx(t)
	const lockPath = "/review/downgrade-orphan"
	p, pairClient, admin, pair, foreign := proxiedPair(t, lockPath)

	must(t, pair.WriteLock().Acquire(ctx))
	// A slow link keeps the client from reconnecting (and retrying the
	// multi) before the reader's ctx is cancelled.
	p.SetLatency(150 * time.Millisecond)
	p.LoseNextReply(zktest.OpMulti)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan error, 1)
	go func() { got <- pair.ReadLock().Acquire(rctx) }()
	locktest.Eventually(t, 10*time.Second, "the downgrade's reply lost", func() bool { return p.LostReplies() == 1 })
	cancel()
	if err := receive(t, got, "the cancelled downgrade"); err == nil {
		must(t, pair.ReadLock().Release(ctx))
		t.Skip("the downgrade completed before the cancellation; interleaving not reached")
	}
	p.SetLatency(0)
	must(t, pair.WriteLock().Release(ctx))

	readNodes := func() []string {
		children, err := childNames(ctx, admin, lockPath) // the container may be gone
		must(t, err)
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
		must(t, err)
		held, err := foreign.TryAcquire(ctx, 500*time.Millisecond)
		must(t, err)
		if held {
			must(t, foreign.Release(ctx))
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
func TestReviewNoSignalWatchOutlivesACancelledAcquisition(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := testCtx(t)
	const lockPath = "/review/signals-cancelled"
	admin := locktest.NewClient(t, srv.ConnectString())
	holder := locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), lockPath)
	middle := locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), lockPath)
	waiter := locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), lockPath)

	must(t, holder.Acquire(ctx))
	mctx, cancelMiddle := context.WithCancel(ctx)
	defer cancelMiddle()
	mgot := make(chan error, 1)
	go func() { mgot <- middle.Acquire(mctx) }()
	waitParticipants(t, holder, 2)
	wctx, cancelWaiter := context.WithCancel(ctx)
	defer cancelWaiter()
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(wctx) }()
	nodes := waitParticipants(t, holder, 3)
	signal := nodes[1] + ".released"
	locktest.Eventually(t, 10*time.Second, "the waiter watching "+signal, func() bool {
		return perfWatchesByPath(t, srv)[signal] > 0
	})

	cancelMiddle()
	if err := receive(t, mgot, "the middle Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("middle Acquire: %v; want context.Canceled", err)
	}
	waitParticipants(t, holder, 2)
	must(t, admin.Delete(ctx, nodes[2])) // an operator deletes the waiter's node
	locktest.Eventually(t, 10*time.Second, "the waiter queued again", func() bool {
		ps, err := holder.ParticipantNodes(ctx)
		return err == nil && len(ps) == 2 && ps[1] != nodes[2]
	})
	cancelWaiter()
	if err := receive(t, got, "the waiter's Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiter Acquire: %v; want context.Canceled", err)
	}
	must(t, holder.Release(ctx))
	waitParticipants(t, holder, 0)

	// The signal is fired in the background once no contender sorts before
	// its predecessor, here as soon as the holder is gone.
	locktest.Eventually(t, 10*time.Second, "no release-signal watch left on "+lockPath, func() bool {
		for p := range perfWatchesByPath(t, srv) {
			if strings.HasSuffix(p, ".released") && path.Dir(p) == lockPath {
				return false
			}
		}
		return true
	})
}

// Attack: fencing tokens of one read/write lock. A downgrade creates the read
// node after a foreign writer queued, with the write node's sequence: the
// reader's token (its node's czxid) is greater than the token of the writer
// that holds after it, so a store fenced by the lock's tokens sees them go
// back.
func TestReviewReadWriteTokensNeverGoBackAcrossADowngrade(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := testCtx(t)
	const lockPath = "/review/rw-tokens"
	pair := locks.NewInterProcessReadWriteLock(locktest.NewClient(t, srv.ConnectString()), lockPath)
	foreign := locks.NewInterProcessReadWriteLock(locktest.NewClient(t, srv.ConnectString()), lockPath).WriteLock()

	must(t, pair.WriteLock().Acquire(ctx))
	writeToken := pair.WriteLock().FencingToken()
	got := make(chan error, 1)
	go func() { got <- foreign.Acquire(ctx) }()
	waitParticipants(t, foreign, 2)
	must(t, pair.ReadLock().Acquire(ctx)) // the downgrade
	must(t, pair.WriteLock().Release(ctx))
	readToken := pair.ReadLock().FencingToken()
	must(t, pair.ReadLock().Release(ctx))
	awaitResult(t, got, "the foreign writer's Acquire")
	foreignToken := foreign.FencingToken()
	must(t, foreign.Release(ctx))

	if writeToken == 0 || readToken == 0 || foreignToken <= readToken || foreignToken <= writeToken {
		t.Fatalf("tokens in hold order: pair write %d, pair read (downgrade) %d, foreign write %d: not increasing",
			writeToken, readToken, foreignToken)
	}
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
func TestReviewDowngradeLostReplyRacingTheWriteReleaseNeitherDeadlocksNorOrphans(t *testing.T) {
	ctx := testCtx(t)
	const lockPath = "/review/downgrade-deadlock"
	p, _, admin, pair, foreign := proxiedPair(t, lockPath)

	must(t, pair.WriteLock().Acquire(ctx))
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
	locktest.Eventually(t, 5*time.Second, "the downgrade multi sent", func() bool { return p.RequestCount(zktest.OpMulti) == 1 })
	wgot := make(chan error, 1)
	go func() { wgot <- pair.WriteLock().Release(ctx) }()
	locktest.Eventually(t, 5*time.Second, "the write node's delete sent", func() bool { return p.RequestCount(zktest.OpDelete) == 1 })
	p.Resume()
	awaitResult(t, wgot, "the write release")
	if p.LostReplies() != 1 {
		t.Fatalf("lost replies %d; want 1", p.LostReplies())
	}

	if err := receive(t, rgot, "the reader's Acquire"); err != nil {
		children, _, _ := admin.Children(ctx, lockPath)
		t.Fatalf("the reader never held after its downgrade's reply was lost (%v); nodes %v", err, children)
	}
	must(t, pair.ReadLock().Release(ctx))
	if err := receive(t, fgot, "the foreign writer"); err != nil {
		children, _, _ := admin.Children(ctx, lockPath)
		t.Fatalf("the foreign writer never held after the reader released (%v); nodes %v", err, children)
	}
}

// Attack: a waiter's ctx is cancelled while its connection is partitioned.
// The contract lets the node go by a guaranteed delete in the background when
// the connection is down; instead abandon waits for the connection for a full
// session timeout (60 s by default, and another one in fireLater when stale
// signals are pending) before Acquire returns its ctx error.
func TestReviewCancelledAcquireReturnsPromptlyDuringAPartition(t *testing.T) {
	const session = 4 * time.Second
	srv := zktest.StartServer(t)
	ctx := testCtx(t)
	const lockPath = "/review/cancel-partition"
	p := zktest.StartProxy(t, srv.ConnectString())
	holder := locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), lockPath)
	waiter := locks.NewInterProcessMutex(locktest.NewClient(t, p.Addr(), framework.WithSessionTimeout(session)), lockPath)
	must(t, holder.Acquire(ctx))
	wctx, cancel := context.WithCancel(ctx)
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(wctx) }()
	waitParticipants(t, holder, 2)

	p.Pause()
	start := time.Now()
	cancel()
	err := receive(t, got, "the cancelled waiter's Acquire")
	took := time.Since(start)
	p.Resume()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Acquire: %v; want context.Canceled", err)
	}
	waitParticipants(t, holder, 1) // the waiter's node goes once the link is back
	must(t, holder.Release(ctx))
	if took > session/4 {
		t.Fatalf("Acquire returned %v after its ctx was cancelled during a partition (session timeout %v)", took, session)
	}
}
