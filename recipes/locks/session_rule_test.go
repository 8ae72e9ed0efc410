package locks_test

import (
	"context"
	"errors"
	"path"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Tests of the session rule and of the holes an outside review found in it:
// a node counts only while the session that created it is the client's
// current one, a downgrade is atomic, a fencing token is the hold's own, and
// no release-signal watch outlives an acquisition.

// awaitState returns once c reports want, failing the test after 15 s.
func awaitState(t *testing.T, c *framework.Client, want framework.ConnectionState, during func()) {
	t.Helper()
	seen := make(chan struct{})
	var once bool
	stop := c.Listen(func(s framework.ConnectionState) {
		if s == want && !once {
			once = true
			close(seen)
		}
	})
	defer stop()
	during()
	select {
	case <-seen:
	case <-time.After(15 * time.Second):
		t.Fatalf("client did not report %v within 15s", want)
	}
}

// givenUpSession pauses p until c gives its session up (simulated expiry),
// discards what the pause held, so that the old session's close never
// reaches the server, runs between, and lets c connect again.
func givenUpSession(t *testing.T, p *zktest.Proxy, c *framework.Client, between func()) {
	t.Helper()
	awaitState(t, c, framework.Lost, p.Pause)
	p.Sever()
	between()
	p.Resume()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	zktest.Must(t, c.BlockUntilConnected(ctx))
}

// Scenario 1: the client gives its session up while a waiter queues; the
// holder releases meanwhile, so the waiter's old node is the lowest when it
// lists on the new session. It must not hold through that node, which still
// stands on the server until the old session expires: it deletes it and
// holds through a node of its current session.
func TestWaiterNeverHoldsThroughANodeOfAGivenUpSession(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	holderClient := zkclient.New(t, srv.ConnectString())
	p := zktest.StartProxy(t, srv.ConnectString())
	waiterClient := zkclient.New(t, p.Addr(),
		framework.WithSessionTimeout(8*time.Second), framework.WithSimulatedSessionExpirationPercent(15))

	holder := built(locks.NewInterProcessMutex(holderClient, "/session-rule/mutex"))
	waiter := built(locks.NewInterProcessMutex(waiterClient, "/session-rule/mutex"))
	zktest.Must(t, holder.Acquire(ctx))
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	old := waitParticipants(t, holder, 2)[1]
	oldSession := waiterClient.SessionID()

	givenUpSession(t, p, waiterClient, func() { zktest.Must(t, holder.Release(ctx)) })
	awaitResult(t, got, "the waiter's Acquire")
	defer func() { zktest.Must(t, waiter.Release(ctx)) }()

	if waiterClient.SessionID() == oldSession {
		t.Fatal("the waiter's client kept its session: the test did not give it up")
	}
	if held := waiter.LockPath(); held == old {
		t.Fatalf("the waiter holds through %s, a node of the session it gave up", old)
	}
	assertNodeOfSession(t, waiterClient, waiter.LockPath())
	zktest.Eventually(t, 10*time.Second, "the given-up node deleted", func() bool {
		stat, err := holderClient.Exists(ctx, old)
		return err == nil && stat == nil
	})
	select {
	case <-waiter.Lost():
		t.Fatal("the new hold's Lost channel is closed")
	default:
	}
}

// Scenario 2: the pair's write node is gone (an operator deleted it) and a
// queued foreign writer holds; the pair still believes it holds the write
// lock. Its downgrade must not create a read node ahead of that writer.
func TestDowngradeNeverLandsAheadOfAForeignWriter(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	admin := zkclient.New(t, srv.ConnectString())
	pair := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/session-rule/rw"))
	foreign := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/session-rule/rw")).WriteLock()

	zktest.Must(t, pair.WriteLock().Acquire(ctx))
	written := pair.WriteLock().LockPath()
	got := make(chan error, 1)
	go func() { got <- foreign.Acquire(ctx) }()
	waitParticipants(t, foreign, 2)
	zktest.Must(t, admin.Delete(ctx, written))
	awaitResult(t, got, "the foreign writer's Acquire")
	defer func() { zktest.Must(t, foreign.Release(ctx)) }()

	err := pair.ReadLock().Acquire(ctx)
	if err == nil {
		_ = pair.ReadLock().Release(ctx)
		t.Fatal("the downgrade holds the read lock beside a foreign writer")
	}
	if !errors.Is(err, locks.ErrLockLost) {
		t.Fatalf("downgrade without a write node: %v; want ErrLockLost", err)
	}
	readers, err := pair.ReadLock().ParticipantNodes(ctx)
	zktest.Must(t, err)
	if len(readers) != 0 {
		t.Fatalf("the refused downgrade left read nodes %v", readers)
	}
	_ = pair.WriteLock().Release(ctx)
}

// A pair used from two goroutines, one releasing the write lock while the
// other takes the read lock, never lets a queued foreign writer hold beside
// its reader, whichever request lands first.
func TestDowngradeRacingTheWriteReleaseStaysExclusive(t *testing.T) {
	const rounds = 8
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	pair := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/session-rule/race"))
	foreign := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/session-rule/race")).WriteLock()
	var check locktest.Checker
	for range rounds {
		zktest.Must(t, pair.WriteLock().Acquire(ctx))
		fdone := make(chan error, 1)
		go func() {
			if err := foreign.Acquire(ctx); err != nil {
				fdone <- err
				return
			}
			exit := check.Enter()
			time.Sleep(5 * time.Millisecond) // the critical section
			exit()
			fdone <- foreign.Release(ctx)
		}()
		waitParticipants(t, foreign, 2)
		released := make(chan error, 1)
		go func() { released <- pair.WriteLock().Release(ctx) }()
		zktest.Must(t, pair.ReadLock().Acquire(ctx))
		exit := check.EnterShared()
		time.Sleep(20 * time.Millisecond) // the critical section
		exit()
		zktest.Must(t, pair.ReadLock().Release(ctx))
		awaitResult(t, released, "the write release")
		awaitResult(t, fdone, "the foreign writer")
	}
	if v := check.Violations(); v != 0 {
		t.Fatalf("%d overlaps of the pair's reader and a foreign writer", v)
	}
}

// Scenario 3: an unfair holder's session expires before it first asks for
// its fencing token, and a successor holds. The stale holder must not get
// the successor's token (the czxid of the shared holder node): it keeps its
// own, read when it took the lock, older than the successor's.
func TestStaleUnfairHolderNeverGetsTheSuccessorsToken(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	staleClient := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(shortSession))
	driver := locks.WithDriver(locks.UnfairLockInternalsDriver{})
	stale := built(locks.NewInterProcessMutex(staleClient, "/session-rule/unfair", driver))
	next := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/session-rule/unfair", driver))

	zktest.Must(t, stale.Acquire(ctx))
	p.Pause()
	zktest.Must(t, next.Acquire(ctx)) // once the server expired the stale holder's session
	defer func() { zktest.Must(t, next.Release(ctx)) }()
	p.Resume()
	bctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	zktest.Must(t, staleClient.BlockUntilConnected(bctx))

	successor := next.FencingToken()
	if successor == 0 {
		t.Fatal("the successor has no fencing token")
	}
	if got := stale.FencingToken(); got == 0 || got >= successor {
		t.Fatalf("the stale holder's fencing token is %d (the successor's is %d); want its own, older one", got, successor)
	}
	select {
	case <-stale.Lost():
	default:
		t.Fatal("the stale holder's Lost channel is open")
	}
	_ = stale.Release(ctx)
}

// vanishingDriver is the standard driver, except that the acquisition's
// context is cancelled at the moment its node is found missing from the
// contenders, as when an operator deletes it.
type vanishingDriver struct {
	locks.StandardLockInternalsDriver
	cancel context.CancelFunc
}

func (d vanishingDriver) GetsTheLock(ctx context.Context, c *framework.Client, children []string, name string, maxLeases int) (locks.PredicateResults, error) {
	d.cancel()
	others := slices.DeleteFunc(slices.Clone(children), func(n string) bool { return n == name })
	return d.StandardLockInternalsDriver.GetsTheLock(ctx, c, others, name, maxLeases)
}

// Scenario 5, second half: an Acquire cancelled while its node vanished
// reports the cancellation, not a lost lock.
func TestCancelledAcquireWhoseNodeVanishedReportsTheCancellation(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx, cancel := context.WithCancel(zktest.TestContext(t))
	m := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/session-rule/cancel",
		locks.WithDriver(vanishingDriver{cancel: cancel})))
	err := m.Acquire(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire: %v; want an error matching context.Canceled", err)
	}
}

// signalChain is a holder of lockPath, a middle contender waiting behind it
// and a waiter watching the middle one's release signal, each with a client
// of its own; cancelMiddle and cancelWaiter end their Acquire calls.
type signalChain struct {
	srv                        *zktest.Server
	admin, waiterClient        *framework.Client
	holder, middle, waiter     *locks.InterProcessMutex
	nodes                      []string // holder, middle, waiter
	middleGot, waiterGot       chan error
	cancelMiddle, cancelWaiter context.CancelFunc
}

func startSignalChain(t *testing.T, lockPath string) *signalChain {
	return startSignalChainWith(t, lockPath, zkclient.TestRetryPolicy)
}

// startSignalChainWith is startSignalChain with the waiter's client under
// policy.
func startSignalChainWith(t *testing.T, lockPath string, policy retry.Policy) *signalChain {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := &signalChain{srv: srv, admin: zkclient.New(t, srv.ConnectString()),
		waiterClient: zkclient.NewWithPolicy(t, srv.ConnectString(), policy,
			framework.WithSessionTimeout(2*time.Second), framework.WithConnectionTimeout(5*time.Second)),
		middleGot: make(chan error, 1), waiterGot: make(chan error, 1)}
	c.holder = built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath))
	c.middle = built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath))
	c.waiter = built(locks.NewInterProcessMutex(c.waiterClient, lockPath))

	zktest.Must(t, c.holder.Acquire(ctx))
	mctx, cancelMiddle := context.WithCancel(ctx)
	c.cancelMiddle = cancelMiddle
	go func() { c.middleGot <- c.middle.Acquire(mctx) }()
	waitParticipants(t, c.holder, 2)
	wctx, cancelWaiter := context.WithCancel(ctx)
	c.cancelWaiter = cancelWaiter
	go func() { c.waiterGot <- c.waiter.Acquire(wctx) }()
	c.nodes = waitParticipants(t, c.holder, 3)
	signal := c.nodes[1] + ".released"
	zktest.Eventually(t, 10*time.Second, "the waiter watching "+signal, func() bool {
		return perfWatchesByPath(t, srv)[signal] > 0
	})
	return c
}

// deleteWaiterNode has an operator delete the waiter's node and waits until
// the waiter has queued again, with want contenders in all.
func (c *signalChain) deleteWaiterNode(t *testing.T, want int) {
	ctx := zktest.TestContext(t)
	zktest.Must(t, c.admin.Delete(ctx, c.nodes[2]))
	zktest.Eventually(t, 10*time.Second, "the waiter queued again", func() bool {
		ps, err := c.holder.ParticipantNodes(ctx)
		return err == nil && len(ps) == want && ps[want-1] != c.nodes[2]
	})
}

// Scenario 5: a waiter watches its predecessor's release signal; the
// predecessor gives up without one, and an operator deletes the waiter's
// node. The signal watch it left must not stay on the server after the
// acquisition that set it ends.
func TestNoReleaseSignalWatchOutlivesItsAcquisition(t *testing.T) {
	const lockPath = "/session-rule/signals"
	c := startSignalChain(t, lockPath)
	ctx := zktest.TestContext(t)

	c.cancelMiddle() // the middle contender gives up: no signal
	if err := receive(t, c.middleGot, "the middle Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("middle Acquire: %v; want context.Canceled", err)
	}
	waitParticipants(t, c.holder, 2)
	c.deleteWaiterNode(t, 2)
	zktest.Must(t, c.holder.Release(ctx))
	awaitResult(t, c.waiterGot, "the waiter's Acquire")
	zktest.Must(t, c.waiter.Release(ctx))

	for p := range perfWatchesByPath(t, c.srv) {
		if strings.HasSuffix(p, ".released") && path.Dir(p) == lockPath {
			t.Fatalf("the release-signal watch on %s outlived its acquisition", p)
		}
	}
}

// The background firing of an abandoned acquisition's stale signals
// (releaseSignals.fireLater) waits while contenders before them remain, and
// ends when its client closes rather than outliving it.
func TestStaleSignalFiringEndsWithItsClient(t *testing.T) {
	// The waiter's retry sleeps long: it gives up before it queues again,
	// with no node whose deletion could fire its stale signal.
	c := startSignalChainWith(t, "/session-rule/stale-close", retry.NTimes{N: 3, Sleep: time.Minute})
	ctx := zktest.TestContext(t)

	c.deleteWaiterNode(t, 2) // its signal watch is stale
	c.cancelWaiter()
	if err := receive(t, c.waiterGot, "the waiter's Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiter Acquire: %v; want context.Canceled", err)
	}
	const firing = "releaseSignals.fireLater"
	zktest.Eventually(t, 10*time.Second, "the stale signal waiting to be fired", func() bool {
		return goroutinesRunning(firing)
	})
	c.waiterClient.Close()
	zktest.Eventually(t, 10*time.Second, "no stale signal firing after Close", func() bool {
		return !goroutinesRunning(firing)
	})

	zktest.Must(t, c.holder.Release(ctx))
	awaitResult(t, c.middleGot, "the middle's Acquire")
	zktest.Must(t, c.middle.Release(ctx))
}

// goroutinesRunning reports whether any goroutine's stack names fn.
func goroutinesRunning(fn string) bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), fn)
}
