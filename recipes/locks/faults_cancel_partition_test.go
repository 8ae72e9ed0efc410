package locks_test

import (
	"context"
	"errors"
	"path"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A cancelled acquisition of a semaphore or a multi-lock returns promptly in
// a partition, as a mutex's does: its clean-up waits only briefly, and the
// deletes go on in the background once the link is back.

// partitionSession is the session timeout of the partitioned clients; a
// cancelled acquisition must return within a quarter of it. A clean-up that
// waited for the partition to be noticed would take two thirds of it (when
// go-zookeeper reports the disconnection), so 8 s leaves a quarter (2 s) that
// both catches that and covers a loaded machine's scheduling.
const partitionSession = 8 * time.Second

// cancelDuringPartition pauses p, cancels the acquisition whose result comes
// on got, resumes p once it returned, and fails the test unless it returned
// context.Canceled within a quarter of partitionSession.
func cancelDuringPartition(t *testing.T, p *zktest.Proxy, cancel context.CancelFunc, got <-chan error) {
	t.Helper()
	p.Pause()
	start := time.Now()
	cancel()
	err := receive(t, got, "the cancelled acquisition")
	took := time.Since(start)
	p.Resume()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled acquisition: %v; want context.Canceled", err)
	}
	if took > partitionSession/4 {
		t.Fatalf("the acquisition returned %v after its ctx was cancelled during a partition (session timeout %v)", took, partitionSession)
	}
}

// A semaphore acquirer holding one of the two leases it asks for, and the
// semaphore's lock, returns both promptly.
func TestCancelledSemaphoreAcquireReturnsPromptlyDuringAPartition(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const semPath = "/partition/semaphore"
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	held, err := built(locks.NewInterProcessSemaphoreV2(admin, semPath, 2)).Acquire(ctx)
	zktest.Must(t, err)
	waiter := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, p.Addr(), framework.WithSessionTimeout(partitionSession)), semPath, 2))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		leases, err := waiter.AcquireN(wctx, 2)
		if leases != nil {
			err = errors.Join(err, errors.New("got leases"))
		}
		got <- err
	}()
	awaitCount(t, admin, semPath+"/leases", 3) // ours, one granted and one waiting
	cancelDuringPartition(t, p, cancel, got)
	awaitChildren(t, admin, semPath+"/leases", held.NodeName())
	awaitChildren(t, admin, semPath+"/locks")
	zktest.Must(t, held.Close(ctx))
}

// A multi-lock that holds its first lock and waits for its second returns
// promptly, and both nodes go once the link is back.
func TestCancelledMultiLockAcquireReturnsPromptlyDuringAPartition(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const first, second = "/partition/multi/a", "/partition/multi/b"
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	holder := built(locks.NewInterProcessMutex(admin, second))
	zktest.Must(t, holder.Acquire(ctx))
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(partitionSession))
	ml := built(locks.NewInterProcessMultiLock(built(locks.NewInterProcessMutex(c, first)), built(locks.NewInterProcessMutex(c, second))))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan error, 1)
	go func() { got <- ml.Acquire(wctx) }()
	waitParticipants(t, holder, 2)
	cancelDuringPartition(t, p, cancel, got)
	if ml.IsAcquiredInThisProcess() {
		t.Fatal("the cancelled multi-lock reports holding")
	}
	awaitChildren(t, admin, first)
	awaitChildren(t, admin, second, path.Base(holder.LockPath()))
	zktest.Must(t, holder.Release(ctx))
}
