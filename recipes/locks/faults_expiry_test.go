package locks_test

import (
	"path"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Session expiry: a holder's or a waiter's session expires on the server
// (a proxy paused past the session timeout). Each test checks the outcome,
// that no node is left behind and, under contention, that holders never
// overlap.

// A waiter whose session expires while it waits gets a new node in its new
// session and still acquires, leaving no node of the old session behind.
func TestMutexWaiterSurvivesItsOwnSessionExpiry(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	holder := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/waiter-expiry"))
	waiterClient := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	waiter := built(locks.NewInterProcessMutex(waiterClient, "/waiter-expiry"))
	zktest.Must(t, holder.Acquire(ctx))
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	first := waitParticipants(t, holder, 2)[1]
	oldSession := waiterClient.SessionID()

	proxy.Pause()
	// The server expires the waiter's session; its node goes.
	waitParticipants(t, holder, 1)
	proxy.Resume()
	zktest.Eventually(t, 10*time.Second, "waiter on a new session with a new node", func() bool {
		nodes, err := holder.ParticipantNodes(ctx)
		return err == nil && len(nodes) == 2 && nodes[1] != first && waiterClient.SessionID() != oldSession
	})
	zktest.Must(t, holder.Release(ctx))
	select {
	case err := <-got:
		zktest.Must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("waiter did not acquire after its session was replaced")
	}
	if nodes := waitParticipants(t, waiter, 1); nodes[0] != waiter.LockPath() {
		t.Fatalf("participants %v; want only %s", nodes, waiter.LockPath())
	}
	zktest.Must(t, waiter.Release(ctx))
	waitParticipants(t, waiter, 0)
}

func TestMutexWaiterAcquiresAfterHolderSessionExpires(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	holderClient := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	holder := built(locks.NewInterProcessMutex(holderClient, "/expiry"))
	waiter := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/expiry"))
	zktest.Must(t, holder.Acquire(ctx))
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	waitParticipants(t, waiter, 2)

	proxy.Pause()
	paused := time.Now()
	select {
	case <-holder.Lost():
	case <-time.After(5 * shortSession):
		t.Fatal("holder's Lost() did not close during the partition")
	}
	select {
	case err := <-got:
		zktest.Must(t, err)
	case <-time.After(5 * shortSession):
		t.Fatal("waiter did not acquire after the holder's session expired")
	}
	t.Logf("waiter acquired %v after the partition began (session timeout %v)", time.Since(paused), holderClient.SessionTimeout())
	proxy.Resume()
	// The stale holder must be able to release without touching the new holder's node.
	zktest.Must(t, holder.Release(ctx))
	nodes := waitParticipants(t, waiter, 1)
	if nodes[0] != waiter.LockPath() {
		t.Fatalf("after the stale release, participants %v; want only %s", nodes, waiter.LockPath())
	}
	zktest.Must(t, waiter.Release(ctx))
}

// A writer partitioned past its session timeout loses its node; the readers
// queued behind it get in only after its Lost channel closed, and its stale
// Release deletes none of theirs.
func TestReadWriteLockWriterSessionExpiryLetsReadersIn(t *testing.T) {
	const lockPath = "/rw-writer-expiry"
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	writer := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession)), lockPath))
	readersClient := zkclient.New(t, srv.ConnectString())
	observer := zkclient.New(t, srv.ConnectString())

	var check locktest.Checker
	zktest.Must(t, writer.WriteLock().Acquire(ctx))
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
		built(locks.NewInterProcessReadWriteLock(readersClient, lockPath)),
		built(locks.NewInterProcessReadWriteLock(readersClient, lockPath)),
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
	zktest.Must(t, writer.WriteLock().Release(ctx))
	readNodes := []string{path.Base(readers[0].ReadLock().LockPath()), path.Base(readers[1].ReadLock().LockPath())}
	awaitChildren(t, observer, lockPath, readNodes...)
	// On its new session the writer is still kept out, and leaves no node.
	if ok, err := writer.WriteLock().TryAcquire(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("writer's TryAcquire on its new session while readers hold = %v, %v; want false, nil", ok, err)
	}
	awaitChildren(t, observer, lockPath, readNodes...)

	for _, r := range readers {
		(<-exits)()
		zktest.Must(t, r.ReadLock().Release(ctx))
	}
	zktest.Must(t, writer.WriteLock().Acquire(ctx))
	leaveAgain := check.Enter()
	awaitChildren(t, observer, lockPath, path.Base(writer.WriteLock().LockPath()))
	leaveAgain()
	zktest.Must(t, writer.WriteLock().Release(ctx))
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
	ctx := zktest.TestContext(t)
	staleClient := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	stale := built(locks.NewInterProcessSemaphoreV2(staleClient, semPath, maxLeases))
	other := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), semPath, maxLeases))
	waiter := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), semPath, maxLeases))
	observer := zkclient.New(t, srv.ConnectString())

	var g gauge
	staleLease, err := stale.Acquire(ctx)
	zktest.Must(t, err)
	g.add(1)
	onDisconnect(t, staleClient, func() { g.add(-1) })
	otherLease, err := other.Acquire(ctx)
	zktest.Must(t, err)
	g.add(1)
	got := acquireLease(ctx, waiter, &g)
	awaitCount(t, observer, semPath+"/leases", 3)
	if len(got) != 0 {
		t.Fatal("a third lease was granted with a limit of 2")
	}

	proxy.Pause()
	r := receive(t, got, "waiter's Acquire after the holder's session expired")
	zktest.Must(t, r.err)
	assertMaxLeases(t, &g, maxLeases)
	awaitGone(t, observer, staleLease.Path())
	proxy.Resume()

	zktest.Must(t, staleLease.Close(ctx))
	awaitChildren(t, observer, semPath+"/leases", otherLease.NodeName(), r.lease.NodeName())
	// On its new session the stale holder waits like anyone and leaves no node.
	if leases, err := stale.TryAcquire(ctx, 1, 100*time.Millisecond); leases != nil || err != nil {
		t.Fatalf("TryAcquire on the new session with every lease taken = %v, %v; want nil, nil", leases, err)
	}
	awaitChildren(t, observer, semPath+"/leases", otherLease.NodeName(), r.lease.NodeName())
	g.add(-2)
	zktest.Must(t, otherLease.Close(ctx))
	zktest.Must(t, r.lease.Close(ctx))
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
	ctx := zktest.TestContext(t)
	holder := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), semPath, maxLeases))
	partitioned := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession)), semPath, maxLeases))
	queued := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), semPath, maxLeases))
	observer := zkclient.New(t, srv.ConnectString())

	var g gauge
	first, err := holder.Acquire(ctx)
	zktest.Must(t, err)
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
	zktest.Eventually(t, 10*time.Second, "the queued acquirer waits for a lease", func() bool {
		leases, err := childNames(ctx, observer, semPath+"/leases")
		lockNodes, lerr := childNames(ctx, observer, semPath+"/locks")
		return err == nil && lerr == nil && len(leases) == 2 && len(lockNodes) == 1
	})
	proxy.Resume()

	g.add(-1)
	zktest.Must(t, first.Close(ctx))
	rq := receive(t, gotQueued, "queued acquirer's Acquire")
	zktest.Must(t, rq.err)
	// The partitioned acquirer is back on a new session with new nodes,
	// waiting for the only lease.
	zktest.Eventually(t, 10*time.Second, "the partitioned acquirer waits again with new nodes", func() bool {
		leases, err := childNames(ctx, observer, semPath+"/leases")
		lockNodes, lerr := childNames(ctx, observer, semPath+"/locks")
		return err == nil && lerr == nil && len(leases) == 2 && len(lockNodes) == 1 && lockNodes[0] != oldLock[0]
	})
	if len(gotPartitioned) != 0 {
		t.Fatal("the partitioned acquirer returned while the only lease is held")
	}
	g.add(-1)
	zktest.Must(t, rq.lease.Close(ctx))
	rp := receive(t, gotPartitioned, "partitioned acquirer's Acquire once the lease was returned")
	zktest.Must(t, rp.err)
	awaitChildren(t, observer, semPath+"/leases", rp.lease.NodeName())
	awaitChildren(t, observer, semPath+"/locks")
	g.add(-1)
	zktest.Must(t, rp.lease.Close(ctx))
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
	ctx := zktest.TestContext(t)
	staleClient := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	stale := built(locks.NewInterProcessSemaphoreMutex(staleClient, mutexPath))
	waiter := built(locks.NewInterProcessSemaphoreMutex(zkclient.New(t, srv.ConnectString()), mutexPath))
	observer := zkclient.New(t, srv.ConnectString())

	var check locktest.Checker
	zktest.Must(t, stale.Acquire(ctx))
	leaveStale := check.Enter()
	onDisconnect(t, staleClient, leaveStale)
	got, exits := acquireEntering(ctx, waiter, check.Enter)
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

	zktest.Must(t, stale.Release(ctx))
	if stale.IsAcquiredInThisProcess() {
		t.Fatal("the stale holder reports holding after Release")
	}
	awaitChildren(t, observer, mutexPath+"/leases", nodes[1])
	if ok, err := stale.TryAcquire(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("TryAcquire on the new session while the waiter holds = %v, %v; want false, nil", ok, err)
	}
	awaitChildren(t, observer, mutexPath+"/leases", nodes[1])
	(<-exits)()
	zktest.Must(t, waiter.Release(ctx))
	zktest.Must(t, stale.Acquire(ctx))
	leaveAgain := check.Enter()
	awaitCount(t, observer, mutexPath+"/leases", 1)
	leaveAgain()
	zktest.Must(t, stale.Release(ctx))
	awaitChildren(t, observer, mutexPath+"/leases")
	awaitChildren(t, observer, mutexPath+"/locks")
	if v := check.Violations(); v != 0 {
		t.Fatalf("%d overlapping holds", v)
	}
}
