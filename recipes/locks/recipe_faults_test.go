package locks_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Fault tests of the read/write lock, the semaphore and the semaphore mutex:
// session expiry, server restart within the session, a lost create reply and
// cancelled contexts. Each checks the outcome, that no node is left behind
// (listed through a client of its own) and, under contention, that holders
// never overlap.

// restartSession outlasts a server restart plus go-zookeeper's one-second
// pause before it redials a lone server.
const restartSession = 5 * time.Second

// createOps are the opcodes a lock node's create may use.
var createOps = []zktest.Op{zktest.OpCreate, zktest.OpCreate2, zktest.OpCreateContainer}

// leaseResult is the outcome of an acquisition run on a goroutine.
type leaseResult struct {
	lease *locks.Lease
	err   error
}

// childNames returns the sorted children of p; an absent p has none.
func childNames(ctx context.Context, c *framework.Client, p string) ([]string, error) {
	children, _, err := c.Children(ctx, p)
	if errors.Is(err, zk.ErrNoNode) {
		return []string{}, nil
	}
	slices.Sort(children)
	return children, err
}

// awaitChildren waits until the children of p are exactly want (node names,
// in any order), failing with the last listing if they never are.
func awaitChildren(t *testing.T, c *framework.Client, p string, want ...string) {
	t.Helper()
	want = slices.Clone(want)
	slices.Sort(want)
	var got []string
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err = childNames(context.Background(), c, p)
		if err == nil && slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children of %s: %v (err %v); want exactly %v", p, got, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitCount waits until p has n children and returns them oldest first (in
// the order of their sequence numbers).
func awaitCount(t *testing.T, c *framework.Client, p string, n int) []string {
	t.Helper()
	var got []string
	locktest.Eventually(t, 10*time.Second, fmt.Sprintf("%d children of %s", n, p), func() bool {
		var err error
		got, err = childNames(context.Background(), c, p)
		return err == nil && len(got) == n
	})
	seq := func(name string) int64 {
		n, err := protection.Sequence(name)
		if err != nil {
			t.Fatalf("child %s of %s: %v", name, p, err)
		}
		return n
	}
	slices.SortFunc(got, func(a, b string) int { return cmp.Compare(seq(a), seq(b)) })
	return got
}

// awaitGone waits until the node at p no longer exists.
func awaitGone(t *testing.T, c *framework.Client, p string) {
	t.Helper()
	locktest.Eventually(t, 10*time.Second, p+" deleted", func() bool {
		stat, err := c.Exists(context.Background(), p)
		return err == nil && stat == nil
	})
}

// receive returns what a goroutine sends on ch, failing the test if nothing
// arrives within 15 s.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(15 * time.Second):
		t.Fatalf("%s: still waiting after 15s", what)
	}
	panic("unreachable")
}

// onDisconnect calls fn once, when c first reports a state other than
// connected: where a holder without a Lost channel must stop acting as one.
func onDisconnect(t *testing.T, c *framework.Client, fn func()) {
	var once sync.Once
	stop := c.Listen(func(s framework.ConnectionState) {
		if !s.IsConnected() {
			once.Do(fn)
		}
	})
	t.Cleanup(stop)
}

// acquireLease runs sem.Acquire on a goroutine; the gauge counts the lease
// from the moment it is granted.
func acquireLease(ctx context.Context, sem *locks.InterProcessSemaphoreV2, g *gauge) <-chan leaseResult {
	got := make(chan leaseResult, 1)
	go func() {
		l, err := sem.Acquire(ctx)
		if err == nil {
			g.add(1)
		}
		got <- leaseResult{l, err}
	}()
	return got
}

// assertMaxLeases fails the test if the gauge ever saw more than n leases.
func assertMaxLeases(t *testing.T, g *gauge, n int) {
	t.Helper()
	if _, maxSeen := g.read(); maxSeen > n {
		t.Fatalf("%d leases held at once; the limit is %d", maxSeen, n)
	}
}

// ---- Session expiry ----

// A writer partitioned past its session timeout loses its node; the readers
// queued behind it get in only after its Lost channel closed, and its stale
// Release deletes none of theirs.
func TestReadWriteLockWriterSessionExpiryLetsReadersIn(t *testing.T) {
	const lockPath = "/rw-writer-expiry"
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := testCtx(t)
	writer := locks.NewInterProcessReadWriteLock(locktest.NewClient(t, proxy.Addr(), framework.WithSessionTimeout(shortSession)), lockPath)
	readersClient := locktest.NewClient(t, srv.ConnectString())
	observer := locktest.NewClient(t, srv.ConnectString())

	var check locktest.Checker
	must(t, writer.WriteLock().Acquire(ctx))
	writeNode := writer.WriteLock().LockPath()
	leave := check.Enter()
	lost := writer.WriteLock().Lost()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-lost:
			leave()
		case <-ctx.Done():
		}
	}()

	readers := []*locks.InterProcessReadWriteLock{
		locks.NewInterProcessReadWriteLock(readersClient, lockPath),
		locks.NewInterProcessReadWriteLock(readersClient, lockPath),
	}
	got := make(chan error, len(readers))
	exits := make(chan func(), len(readers))
	for _, r := range readers {
		go func() {
			err := r.ReadLock().Acquire(ctx)
			if err == nil {
				exits <- check.EnterShared()
			}
			got <- err
		}()
	}
	awaitCount(t, observer, lockPath, 3)
	assertPending(t, got, "a reader's Acquire while the writer holds")

	proxy.Pause()
	awaitResult(t, got, "first reader after the writer's session expired")
	awaitResult(t, got, "second reader after the writer's session expired")
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the expired writer's Lost() is open")
	}
	if v := check.Violations(); v != 0 {
		t.Fatalf("readers got in before the expired writer's Lost() closed (%d overlaps)", v)
	}
	awaitGone(t, observer, writeNode)
	proxy.Resume()

	// The stale release succeeds and leaves the readers' nodes alone.
	must(t, writer.WriteLock().Release(ctx))
	readNodes := []string{path.Base(readers[0].ReadLock().LockPath()), path.Base(readers[1].ReadLock().LockPath())}
	awaitChildren(t, observer, lockPath, readNodes...)
	// On its new session the writer is still kept out, and leaves no node.
	if ok, err := writer.WriteLock().TryAcquire(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("writer's TryAcquire on its new session while readers hold = %v, %v; want false, nil", ok, err)
	}
	awaitChildren(t, observer, lockPath, readNodes...)

	for _, r := range readers {
		(<-exits)()
		must(t, r.ReadLock().Release(ctx))
	}
	must(t, writer.WriteLock().Acquire(ctx))
	leaveAgain := check.Enter()
	awaitChildren(t, observer, lockPath, path.Base(writer.WriteLock().LockPath()))
	leaveAgain()
	must(t, writer.WriteLock().Release(ctx))
	awaitChildren(t, observer, lockPath)
	if v := check.Violations(); v != 0 {
		t.Fatalf("%d overlapping holds", v)
	}
}

// A lease holder partitioned past its session timeout loses its lease node
// and a waiter gets the lease; the stale Lease.Close deletes no other node.
func TestSemaphoreLeaseHolderSessionExpiryFreesItsLease(t *testing.T) {
	const semPath, maxLeases = "/sem-holder-expiry", 2
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := testCtx(t)
	staleClient := locktest.NewClient(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	stale := locks.NewInterProcessSemaphoreV2(staleClient, semPath, maxLeases)
	other := locks.NewInterProcessSemaphoreV2(locktest.NewClient(t, srv.ConnectString()), semPath, maxLeases)
	waiter := locks.NewInterProcessSemaphoreV2(locktest.NewClient(t, srv.ConnectString()), semPath, maxLeases)
	observer := locktest.NewClient(t, srv.ConnectString())

	var g gauge
	staleLease, err := stale.Acquire(ctx)
	must(t, err)
	g.add(1)
	onDisconnect(t, staleClient, func() { g.add(-1) })
	otherLease, err := other.Acquire(ctx)
	must(t, err)
	g.add(1)
	got := acquireLease(ctx, waiter, &g)
	awaitCount(t, observer, semPath+"/leases", 3)
	if len(got) != 0 {
		t.Fatal("a third lease was granted with a limit of 2")
	}

	proxy.Pause()
	r := receive(t, got, "waiter's Acquire after the holder's session expired")
	must(t, r.err)
	assertMaxLeases(t, &g, maxLeases)
	awaitGone(t, observer, staleLease.Path())
	proxy.Resume()

	must(t, staleLease.Close(ctx))
	awaitChildren(t, observer, semPath+"/leases", otherLease.NodeName(), r.lease.NodeName())
	// On its new session the stale holder waits like anyone and leaves no node.
	if leases, err := stale.TryAcquire(ctx, 1, 100*time.Millisecond); leases != nil || err != nil {
		t.Fatalf("TryAcquire on the new session with every lease taken = %v, %v; want nil, nil", leases, err)
	}
	awaitChildren(t, observer, semPath+"/leases", otherLease.NodeName(), r.lease.NodeName())
	g.add(-2)
	must(t, otherLease.Close(ctx))
	must(t, r.lease.Close(ctx))
	awaitChildren(t, observer, semPath+"/leases")
	awaitChildren(t, observer, semPath+"/locks")
}

// An acquirer that holds the semaphore's internal lock while it waits for a
// lease is partitioned past its session timeout: its lock and lease nodes go,
// the acquirer queued behind it on the lock proceeds, and the partitioned one
// comes back on a new session with new nodes and gets the lease in turn.
func TestSemaphoreInternalLockHolderSessionExpiryUnblocksQueue(t *testing.T) {
	const semPath, maxLeases = "/sem-lock-expiry", 1
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := testCtx(t)
	holder := locks.NewInterProcessSemaphoreV2(locktest.NewClient(t, srv.ConnectString()), semPath, maxLeases)
	partitioned := locks.NewInterProcessSemaphoreV2(locktest.NewClient(t, proxy.Addr(), framework.WithSessionTimeout(shortSession)), semPath, maxLeases)
	queued := locks.NewInterProcessSemaphoreV2(locktest.NewClient(t, srv.ConnectString()), semPath, maxLeases)
	observer := locktest.NewClient(t, srv.ConnectString())

	var g gauge
	first, err := holder.Acquire(ctx)
	must(t, err)
	g.add(1)
	gotPartitioned := acquireLease(ctx, partitioned, &g)
	oldLease := awaitCount(t, observer, semPath+"/leases", 2)
	oldLock := awaitCount(t, observer, semPath+"/locks", 1)
	gotQueued := acquireLease(ctx, queued, &g)
	awaitCount(t, observer, semPath+"/locks", 2)

	proxy.Pause()
	// The server deletes the partitioned acquirer's lock and lease nodes; the
	// queued acquirer takes the lock and waits for a lease of its own.
	for _, n := range oldLease {
		if n != first.NodeName() {
			awaitGone(t, observer, semPath+"/leases/"+n)
		}
	}
	awaitGone(t, observer, semPath+"/locks/"+oldLock[0])
	locktest.Eventually(t, 10*time.Second, "the queued acquirer waits for a lease", func() bool {
		leases, err := childNames(ctx, observer, semPath+"/leases")
		lockNodes, lerr := childNames(ctx, observer, semPath+"/locks")
		return err == nil && lerr == nil && len(leases) == 2 && len(lockNodes) == 1
	})
	proxy.Resume()

	g.add(-1)
	must(t, first.Close(ctx))
	rq := receive(t, gotQueued, "queued acquirer's Acquire")
	must(t, rq.err)
	// The partitioned acquirer is back on a new session with new nodes,
	// waiting for the only lease.
	locktest.Eventually(t, 10*time.Second, "the partitioned acquirer waits again with new nodes", func() bool {
		leases, err := childNames(ctx, observer, semPath+"/leases")
		lockNodes, lerr := childNames(ctx, observer, semPath+"/locks")
		return err == nil && lerr == nil && len(leases) == 2 && len(lockNodes) == 1 && lockNodes[0] != oldLock[0]
	})
	if len(gotPartitioned) != 0 {
		t.Fatal("the partitioned acquirer returned while the only lease is held")
	}
	g.add(-1)
	must(t, rq.lease.Close(ctx))
	rp := receive(t, gotPartitioned, "partitioned acquirer's Acquire once the lease was returned")
	must(t, rp.err)
	awaitChildren(t, observer, semPath+"/leases", rp.lease.NodeName())
	awaitChildren(t, observer, semPath+"/locks")
	g.add(-1)
	must(t, rp.lease.Close(ctx))
	assertMaxLeases(t, &g, maxLeases)
	awaitChildren(t, observer, semPath+"/leases")
}

// A semaphore mutex holder partitioned past its session timeout loses the
// lock to a waiter; its stale Release succeeds without touching the waiter's
// node, and on its new session it is kept out until the waiter releases.
func TestSemaphoreMutexHolderSessionExpiryLetsWaiterIn(t *testing.T) {
	const mutexPath = "/semmutex-expiry"
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := testCtx(t)
	staleClient := locktest.NewClient(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	stale := locks.NewInterProcessSemaphoreMutex(staleClient, mutexPath)
	waiter := locks.NewInterProcessSemaphoreMutex(locktest.NewClient(t, srv.ConnectString()), mutexPath)
	observer := locktest.NewClient(t, srv.ConnectString())

	var check locktest.Checker
	must(t, stale.Acquire(ctx))
	leaveStale := check.Enter()
	onDisconnect(t, staleClient, leaveStale)
	got := make(chan error, 1)
	exits := make(chan func(), 1)
	go func() {
		err := waiter.Acquire(ctx)
		if err == nil {
			exits <- check.Enter()
		}
		got <- err
	}()
	nodes := awaitCount(t, observer, mutexPath+"/leases", 2)
	assertPending(t, got, "waiter's Acquire while the holder holds")

	proxy.Pause()
	awaitResult(t, got, "waiter's Acquire after the holder's session expired")
	if v := check.Violations(); v != 0 {
		t.Fatalf("the waiter got in before the expired holder saw its connection go (%d overlaps)", v)
	}
	// The waiter kept the node it waited with; the holder's is gone.
	awaitChildren(t, observer, mutexPath+"/leases", nodes[1])
	proxy.Resume()

	must(t, stale.Release(ctx))
	if stale.IsAcquiredInThisProcess() {
		t.Fatal("the stale holder reports holding after Release")
	}
	awaitChildren(t, observer, mutexPath+"/leases", nodes[1])
	if ok, err := stale.TryAcquire(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("TryAcquire on the new session while the waiter holds = %v, %v; want false, nil", ok, err)
	}
	awaitChildren(t, observer, mutexPath+"/leases", nodes[1])
	(<-exits)()
	must(t, waiter.Release(ctx))
	must(t, stale.Acquire(ctx))
	leaveAgain := check.Enter()
	awaitCount(t, observer, mutexPath+"/leases", 1)
	leaveAgain()
	must(t, stale.Release(ctx))
	awaitChildren(t, observer, mutexPath+"/leases")
	awaitChildren(t, observer, mutexPath+"/locks")
	if v := check.Violations(); v != 0 {
		t.Fatalf("%d overlapping holds", v)
	}
}

// ---- Server restart within the session ----

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
	must(t, srv.Stop())
	must(t, srv.Restart())
	deadline := time.After(15 * time.Second)
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
	must(t, err)
	if stat == nil || stat.EphemeralOwner != c.SessionID() {
		t.Fatalf("after the restart, %s: stat %+v; want a node of session %x", p, stat, c.SessionID())
	}
}

// Holders keep their nodes across a server restart within their session,
// waiters keep waiting, and the holders can release afterwards and hand over.
func TestLockRecipesSurviveServerRestart(t *testing.T) {
	srv := zktest.StartServer(t)
	newClient := func() *framework.Client {
		return locktest.NewClient(t, srv.ConnectString(), framework.WithSessionTimeout(restartSession), framework.WithErrorPolicy(framework.SessionErrorPolicy))
	}
	observer := locktest.NewClient(t, srv.ConnectString(), framework.WithSessionTimeout(restartSession))

	// rwCase: one pair holds one side of a read/write lock (the write side when
	// holdWrite) while another pair waits for the other side.
	rwCase := func(t *testing.T, lockPath string, holdWrite bool) {
		ctx := testCtx(t)
		hc, wc := newClient(), newClient()
		holder := locks.NewInterProcessReadWriteLock(hc, lockPath)
		waiter := locks.NewInterProcessReadWriteLock(wc, lockPath)
		hold, wait := holder.ReadLock(), waiter.WriteLock()
		var check locktest.Checker
		holdEnter, waitEnter := check.EnterShared, check.Enter
		if holdWrite {
			hold, wait = holder.WriteLock(), waiter.ReadLock()
			holdEnter, waitEnter = check.Enter, check.EnterShared
		}
		must(t, hold.Acquire(ctx))
		leave := holdEnter()
		got := make(chan error, 1)
		exits := make(chan func(), 1)
		go func() {
			err := wait.Acquire(ctx)
			if err == nil {
				exits <- waitEnter()
			}
			got <- err
		}()
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
		must(t, hold.Release(ctx))
		awaitResult(t, got, "waiter's Acquire once the holder released")
		awaitChildren(t, observer, lockPath, path.Base(wait.LockPath()))
		(<-exits)()
		must(t, wait.Release(ctx))
		awaitChildren(t, observer, lockPath)
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
	}
	t.Run("read lock held, writer waiting", func(t *testing.T) { rwCase(t, "/rw-restart-read", false) })
	t.Run("write lock held, reader waiting", func(t *testing.T) { rwCase(t, "/rw-restart-write", true) })

	t.Run("semaphore leases held, acquirer waiting", func(t *testing.T) {
		const semPath, maxLeases = "/sem-restart", 2
		ctx := testCtx(t)
		hc, wc := newClient(), newClient()
		holder := locks.NewInterProcessSemaphoreV2(hc, semPath, maxLeases)
		waiter := locks.NewInterProcessSemaphoreV2(wc, semPath, maxLeases)
		var g gauge
		held, err := holder.AcquireN(ctx, maxLeases)
		must(t, err)
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
		must(t, held[0].Close(ctx))
		r := receive(t, got, "waiter's Acquire once a lease was returned")
		must(t, r.err)
		awaitChildren(t, observer, semPath+"/leases", held[1].NodeName(), r.lease.NodeName())
		awaitChildren(t, observer, semPath+"/locks")
		g.add(-2)
		must(t, held[1].Close(ctx))
		must(t, r.lease.Close(ctx))
		awaitChildren(t, observer, semPath+"/leases")
		assertMaxLeases(t, &g, maxLeases)
	})

	t.Run("semaphore mutex held, acquirer waiting", func(t *testing.T) {
		const mutexPath = "/semmutex-restart"
		ctx := testCtx(t)
		hc, wc := newClient(), newClient()
		holder := locks.NewInterProcessSemaphoreMutex(hc, mutexPath)
		waiter := locks.NewInterProcessSemaphoreMutex(wc, mutexPath)
		var check locktest.Checker
		must(t, holder.Acquire(ctx))
		leave := check.Enter()
		got := make(chan error, 1)
		exits := make(chan func(), 1)
		go func() {
			err := waiter.Acquire(ctx)
			if err == nil {
				exits <- check.Enter()
			}
			got <- err
		}()
		nodes := awaitCount(t, observer, mutexPath+"/leases", 2)

		restartWithinSession(t, srv, hc, wc)
		assertNodeOfSession(t, hc, mutexPath+"/leases/"+nodes[0])
		assertPending(t, got, "waiter's Acquire after the restart")
		if !holder.IsAcquiredInThisProcess() {
			t.Fatal("holder reports not holding after a restart within its session")
		}

		leave()
		must(t, holder.Release(ctx))
		awaitResult(t, got, "waiter's Acquire once the holder released")
		awaitChildren(t, observer, mutexPath+"/leases", nodes[1])
		(<-exits)()
		must(t, waiter.Release(ctx))
		awaitChildren(t, observer, mutexPath+"/leases")
		awaitChildren(t, observer, mutexPath+"/locks")
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
	})
}

// ---- Lost create reply ----

// The server creates a lock node but its reply is lost and the connection
// severed: protected mode finds the node on retry, so the acquisition succeeds
// with exactly one node of ours, and contenders still exclude each other.
func TestLockRecipesCreateReplyLost(t *testing.T) {
	srv := zktest.StartServer(t)
	observer := locktest.NewClient(t, srv.ConnectString())
	newProxied := func(t *testing.T) (*zktest.Proxy, *framework.Client) {
		proxy := zktest.StartProxy(t, srv.ConnectString())
		return proxy, locktest.NewClient(t, proxy.Addr(), framework.WithSessionTimeout(restartSession))
	}
	assertLostOne := func(t *testing.T, proxy *zktest.Proxy) {
		t.Helper()
		if n := proxy.LostReplies(); n != 1 {
			t.Fatalf("LostReplies() = %d, want 1", n)
		}
	}

	t.Run("write lock behind a reader", func(t *testing.T) {
		const lockPath = "/rw-lost-write"
		ctx := testCtx(t)
		proxy, c := newProxied(t)
		reader := locks.NewInterProcessReadWriteLock(locktest.NewClient(t, srv.ConnectString()), lockPath).ReadLock()
		writer := locks.NewInterProcessReadWriteLock(c, lockPath).WriteLock()
		var check locktest.Checker
		must(t, reader.Acquire(ctx))
		leave := check.EnterShared()

		proxy.LoseNextReply(createOps...)
		got := make(chan error, 1)
		exits := make(chan func(), 1)
		go func() {
			err := writer.Acquire(ctx)
			if err == nil {
				exits <- check.Enter()
			}
			got <- err
		}()
		locktest.Eventually(t, 10*time.Second, "the create's reply lost", func() bool { return proxy.LostReplies() == 1 })
		awaitCount(t, observer, lockPath, 2)
		assertPending(t, got, "writer's Acquire while a reader holds")

		leave()
		must(t, reader.Release(ctx))
		awaitResult(t, got, "writer's Acquire once the reader released")
		assertLostOne(t, proxy)
		awaitChildren(t, observer, lockPath, path.Base(writer.LockPath()))
		(<-exits)()
		must(t, writer.Release(ctx))
		awaitChildren(t, observer, lockPath)
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
	})

	t.Run("read lock beside a reader", func(t *testing.T) {
		const lockPath = "/rw-lost-read"
		ctx := testCtx(t)
		proxy, c := newProxied(t)
		other := locks.NewInterProcessReadWriteLock(locktest.NewClient(t, srv.ConnectString()), lockPath).ReadLock()
		reader := locks.NewInterProcessReadWriteLock(c, lockPath).ReadLock()
		must(t, other.Acquire(ctx))

		proxy.LoseNextReply(createOps...)
		must(t, reader.Acquire(ctx))
		assertLostOne(t, proxy)
		awaitChildren(t, observer, lockPath, path.Base(other.LockPath()), path.Base(reader.LockPath()))
		must(t, reader.Release(ctx))
		must(t, other.Release(ctx))
		awaitChildren(t, observer, lockPath)
	})

	t.Run("downgrade read node", func(t *testing.T) {
		const lockPath = "/rw-lost-downgrade"
		ctx := testCtx(t)
		proxy, c := newProxied(t)
		rw := locks.NewInterProcessReadWriteLock(c, lockPath)
		must(t, rw.WriteLock().Acquire(ctx))

		proxy.LoseNextReply(zktest.OpMulti) // the downgrade creates its node in a multi
		must(t, rw.ReadLock().Acquire(ctx))
		assertLostOne(t, proxy)
		awaitChildren(t, observer, lockPath, path.Base(rw.WriteLock().LockPath()), path.Base(rw.ReadLock().LockPath()))
		must(t, rw.WriteLock().Release(ctx))
		must(t, rw.ReadLock().Release(ctx))
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
		ctx := testCtx(t)
		proxy, c := newProxied(t)
		gate := locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), semPath+"/locks")
		must(t, gate.Acquire(ctx))
		if loseLockCreate {
			proxy.LoseNextReply(createOps...)
		}
		got := make(chan error, 1)
		go func() { got <- acquire(ctx, c) }()
		awaitCount(t, observer, semPath+"/locks", 2)
		if loseLockCreate {
			locktest.Eventually(t, 10*time.Second, "the lock node's create reply lost", func() bool { return proxy.LostReplies() == 1 })
		} else {
			proxy.LoseNextReply(createOps...)
		}
		assertPending(t, got, "acquisition behind the gate")
		must(t, gate.Release(ctx))
		if opened != nil {
			opened()
		}
		awaitResult(t, got, "acquisition once the gate opened")
		assertLostOne(t, proxy)
		awaitChildren(t, observer, semPath+"/locks")
	}

	t.Run("semaphore lease node", func(t *testing.T) {
		const semPath = "/sem-lost-lease"
		ctx := testCtx(t)
		other, err := locks.NewInterProcessSemaphoreV2(locktest.NewClient(t, srv.ConnectString()), semPath, 2).Acquire(ctx)
		must(t, err)
		var ours *locks.Lease
		gated(t, semPath, false, func(ctx context.Context, c *framework.Client) (err error) {
			ours, err = locks.NewInterProcessSemaphoreV2(c, semPath, 2).Acquire(ctx)
			return err
		}, nil)
		awaitChildren(t, observer, semPath+"/leases", other.NodeName(), ours.NodeName())
		must(t, ours.Close(ctx))
		must(t, other.Close(ctx))
		awaitChildren(t, observer, semPath+"/leases")
	})

	t.Run("semaphore internal lock node", func(t *testing.T) {
		const semPath = "/sem-lost-lock"
		ctx := testCtx(t)
		var ours *locks.Lease
		gated(t, semPath, true, func(ctx context.Context, c *framework.Client) (err error) {
			ours, err = locks.NewInterProcessSemaphoreV2(c, semPath, 1).Acquire(ctx)
			return err
		}, nil)
		awaitChildren(t, observer, semPath+"/leases", ours.NodeName())
		must(t, ours.Close(ctx))
		awaitChildren(t, observer, semPath+"/leases")
	})

	t.Run("semaphore mutex lease node behind a holder", func(t *testing.T) {
		const mutexPath = "/semmutex-lost"
		ctx := testCtx(t)
		holder := locks.NewInterProcessSemaphoreMutex(locktest.NewClient(t, srv.ConnectString()), mutexPath)
		must(t, holder.Acquire(ctx))
		held := awaitCount(t, observer, mutexPath+"/leases", 1)
		var check locktest.Checker
		leave := check.Enter()
		var ours *locks.InterProcessSemaphoreMutex
		exits := make(chan func(), 1)
		gated(t, mutexPath, false, func(ctx context.Context, c *framework.Client) error {
			ours = locks.NewInterProcessSemaphoreMutex(c, mutexPath)
			err := ours.Acquire(ctx)
			if err == nil {
				exits <- check.Enter()
			}
			return err
		}, func() {
			// Our lease node waits behind the holder's.
			awaitCount(t, observer, mutexPath+"/leases", 2)
			leave()
			must(t, holder.Release(ctx))
		})
		(<-exits)()
		if nodes := awaitCount(t, observer, mutexPath+"/leases", 1); nodes[0] == held[0] {
			t.Fatalf("lease nodes %v; want only ours", nodes)
		}
		must(t, ours.Release(ctx))
		awaitChildren(t, observer, mutexPath+"/leases")
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
	})
}

// ---- Cancelled contexts ----

// A cancelled acquisition returns the context's error, leaves no node and no
// hold behind, and does not disturb the holders or the waiters around it.
func TestLockRecipesCancelledAcquireLeavesNoNodes(t *testing.T) {
	srv := zktest.StartServer(t)
	observer := locktest.NewClient(t, srv.ConnectString())

	// cancelWaiting starts acquire with a context it cancels once waiting()
	// holds, and checks that acquire returns context.Canceled.
	cancelWaiting := func(t *testing.T, ctx context.Context, waiting func() bool, acquire func(context.Context) error) {
		t.Helper()
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		got := make(chan error, 1)
		go func() { got <- acquire(wctx) }()
		locktest.Eventually(t, 10*time.Second, "the acquirer waits", waiting)
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
		ctx := testCtx(t)
		c := locktest.NewClient(t, srv.ConnectString())
		reader := locks.NewInterProcessReadWriteLock(c, lockPath).ReadLock()
		writer := locks.NewInterProcessReadWriteLock(c, lockPath).WriteLock()
		must(t, reader.Acquire(ctx))
		cancelWaiting(t, ctx, hasChildren(lockPath, 2), writer.Acquire)
		if writer.IsAcquiredInThisProcess() || writer.LockPath() != "" {
			t.Fatal("the cancelled writer reports a hold")
		}
		awaitChildren(t, observer, lockPath, path.Base(reader.LockPath()))
		// No writer is queued any more: a later reader gets in at once.
		late := locks.NewInterProcessReadWriteLock(c, lockPath).ReadLock()
		if ok, err := late.TryAcquire(ctx, 0); !ok || err != nil {
			t.Fatalf("a later reader's TryAcquire(0) after the writer gave up = %v, %v; want true", ok, err)
		}
		must(t, late.Release(ctx))
		must(t, reader.Release(ctx))
		awaitChildren(t, observer, lockPath)
	})

	t.Run("reader waiting for a writer", func(t *testing.T) {
		const lockPath = "/rw-cancel-reader"
		ctx := testCtx(t)
		c := locktest.NewClient(t, srv.ConnectString())
		writer := locks.NewInterProcessReadWriteLock(c, lockPath).WriteLock()
		reader := locks.NewInterProcessReadWriteLock(c, lockPath).ReadLock()
		must(t, writer.Acquire(ctx))
		cancelWaiting(t, ctx, hasChildren(lockPath, 2), reader.Acquire)
		if reader.IsAcquiredInThisProcess() {
			t.Fatal("the cancelled reader reports a hold")
		}
		awaitChildren(t, observer, lockPath, path.Base(writer.LockPath()))
		must(t, writer.Release(ctx))
		awaitChildren(t, observer, lockPath)
		must(t, reader.Acquire(ctx))
		must(t, reader.Release(ctx))
	})

	t.Run("semaphore acquirer queued on the internal lock", func(t *testing.T) {
		const semPath = "/sem-cancel-queued"
		ctx := testCtx(t)
		c := locktest.NewClient(t, srv.ConnectString())
		sem := locks.NewInterProcessSemaphoreV2(c, semPath, 1)
		var g gauge
		held, err := sem.Acquire(ctx)
		must(t, err)
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
		must(t, held.Close(ctx))
		r := receive(t, got, "the acquirer holding the internal lock")
		must(t, r.err)
		awaitChildren(t, observer, semPath+"/leases", r.lease.NodeName())
		awaitChildren(t, observer, semPath+"/locks")
		must(t, r.lease.Close(ctx))
		awaitChildren(t, observer, semPath+"/leases")
		assertMaxLeases(t, &g, 1)
	})

	t.Run("semaphore mutex waiting for a holder", func(t *testing.T) {
		const mutexPath = "/semmutex-cancel"
		ctx := testCtx(t)
		holder := locks.NewInterProcessSemaphoreMutex(locktest.NewClient(t, srv.ConnectString()), mutexPath)
		waiter := locks.NewInterProcessSemaphoreMutex(locktest.NewClient(t, srv.ConnectString()), mutexPath)
		must(t, holder.Acquire(ctx))
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
		must(t, holder.Release(ctx))
		if ok, err := waiter.TryAcquire(ctx, 5*time.Second); !ok || err != nil {
			t.Fatalf("waiter's TryAcquire once free = %v, %v; want true", ok, err)
		}
		must(t, waiter.Release(ctx))
		awaitChildren(t, observer, mutexPath+"/leases")
	})

	t.Run("context already cancelled", func(t *testing.T) {
		const base = "/cancelled-before"
		ctx := testCtx(t)
		c := locktest.NewClient(t, srv.ConnectString())
		done, cancel := context.WithCancel(ctx)
		cancel()
		rw := locks.NewInterProcessReadWriteLock(c, base+"/rw")
		for name, acquire := range map[string]func() error{
			"read lock":       func() error { return rw.ReadLock().Acquire(done) },
			"write lock":      func() error { return rw.WriteLock().Acquire(done) },
			"semaphore":       func() error { _, err := locks.NewInterProcessSemaphoreV2(c, base+"/sem", 2).Acquire(done); return err },
			"semaphore mutex": func() error { return locks.NewInterProcessSemaphoreMutex(c, base+"/semmutex").Acquire(done) },
		} {
			if err := acquire(); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Acquire with a cancelled context = %v, want context.Canceled", name, err)
			}
		}
		awaitChildren(t, observer, base)
	})
}
