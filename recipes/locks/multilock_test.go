package locks_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// journal records the order in which recordingLocks are acquired and released.
type journal struct {
	mu     sync.Mutex
	events []string
}

func (j *journal) add(e string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.events = append(j.events, e)
}

func (j *journal) take() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := j.events
	j.events = nil
	return out
}

// recordingLock is a real lock that notes its successful acquisitions and
// every release in a journal.
type recordingLock struct {
	locks.Lock
	name string
	j    *journal
}

func (r recordingLock) Acquire(ctx context.Context) error {
	err := r.Lock.Acquire(ctx)
	if err == nil {
		r.j.add("acquire " + r.name)
	}
	return err
}

func (r recordingLock) TryAcquire(ctx context.Context, wait time.Duration) (bool, error) {
	ok, err := r.Lock.TryAcquire(ctx, wait)
	if ok {
		r.j.add("acquire " + r.name)
	}
	return ok, err
}

func (r recordingLock) Release(ctx context.Context) error {
	r.j.add("release " + r.name)
	return r.Lock.Release(ctx)
}

func TestMultiLockAcquiresInOrderReleasesInReverse(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	var j journal
	rw := built(locks.NewInterProcessReadWriteLock(c, "/multi-order/rw"))
	ml := built(locks.NewInterProcessMultiLock(
		recordingLock{built(locks.NewInterProcessMutex(c, "/multi-order/a")), "mutex", &j},
		recordingLock{built(locks.NewInterProcessSemaphoreMutex(c, "/multi-order/b")), "semaphore", &j},
		recordingLock{rw.WriteLock(), "write", &j},
	))
	zktest.Must(t, ml.Acquire(ctx))
	if !ml.IsAcquiredInThisProcess() {
		t.Fatal("IsAcquiredInThisProcess false after Acquire")
	}
	other := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), "/multi-order/rw"))
	if ok, err := other.ReadLock().TryAcquire(ctx, 0); ok || err != nil {
		t.Fatalf("a reader while the multi-lock holds the write lock: TryAcquire(0) = %v, %v; want false", ok, err)
	}
	zktest.Must(t, ml.Release(ctx))
	want := []string{"acquire mutex", "acquire semaphore", "acquire write", "release write", "release semaphore", "release mutex"}
	if got := j.take(); !slices.Equal(got, want) {
		t.Fatalf("events %v; want %v", got, want)
	}
	if ml.IsAcquiredInThisProcess() {
		t.Fatal("IsAcquiredInThisProcess true after Release")
	}
	// The multi-lock is itself a Lock and nests in another.
	outer := built(locks.NewInterProcessMultiLock(ml, built(locks.NewInterProcessMutex(c, "/multi-order/c"))))
	if ok, err := outer.TryAcquire(ctx, 5*time.Second); !ok || err != nil {
		t.Fatalf("nested multi-lock TryAcquire = %v, %v; want true", ok, err)
	}
	zktest.Must(t, outer.Release(ctx))
}

func TestMultiLockRollsBackWhenOneLockFails(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	var j journal
	closed := zkclient.New(t, srv.ConnectString())
	zktest.Must(t, closed.Close())
	first := built(locks.NewInterProcessMutex(c, "/multi-fail/a"))
	broken := built(locks.NewInterProcessMutex(closed, "/multi-fail/c")) // its client is closed
	ml := built(locks.NewInterProcessMultiLock(
		recordingLock{first, "a", &j},
		recordingLock{built(locks.NewInterProcessSemaphoreMutex(c, "/multi-fail/b")), "b", &j},
		recordingLock{broken, "broken", &j},
	))
	err := ml.Acquire(ctx)
	if !errors.Is(err, framework.ErrClosed) || !strings.Contains(err.Error(), "lock 2") {
		t.Fatalf("Acquire with a broken third lock = %v; want its error, naming lock 2", err)
	}
	want := []string{"acquire a", "acquire b", "release b", "release a"}
	if got := j.take(); !slices.Equal(got, want) {
		t.Fatalf("events %v; want %v", got, want)
	}
	if first.IsAcquiredInThisProcess() || ml.IsAcquiredInThisProcess() {
		t.Fatal("a lock is still held after the rollback")
	}
	waitParticipants(t, first, 0)
	waitLeases(t, built(locks.NewInterProcessSemaphoreV2(c, "/multi-fail/b", 1)), 0)
}

func TestMultiLockRollsBackOnTimeoutAndCancel(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	holder := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/multi-busy/b"))
	zktest.Must(t, holder.Acquire(ctx))
	a := built(locks.NewInterProcessMutex(c, "/multi-busy/a"))
	ml := built(locks.NewInterProcessMultiLock(a, built(locks.NewInterProcessMutex(c, "/multi-busy/b"))))

	start := time.Now()
	if ok, err := ml.TryAcquire(ctx, 200*time.Millisecond); ok || err != nil {
		t.Fatalf("TryAcquire with the second lock busy = %v, %v; want false, nil", ok, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("TryAcquire(200ms) took %v", d)
	}
	if a.IsAcquiredInThisProcess() {
		t.Fatal("first lock still held after the timeout")
	}
	waitParticipants(t, a, 0)

	cctx, cancel := context.WithCancel(ctx)
	got := make(chan error, 1)
	go func() { got <- ml.Acquire(cctx) }()
	waitParticipants(t, holder, 2)
	cancel()
	select {
	case err := <-got:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Acquire = %v, want context.Canceled", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("cancelled Acquire did not return")
	}
	if a.IsAcquiredInThisProcess() {
		t.Fatal("first lock still held after the cancellation")
	}
	waitParticipants(t, a, 0)
	nodes := waitParticipants(t, holder, 1)
	if nodes[0] != holder.LockPath() {
		t.Fatalf("participants %v; want only the holder's node", nodes)
	}
	zktest.Must(t, holder.Release(ctx))
	zktest.Must(t, ml.Acquire(ctx))
	zktest.Must(t, ml.Release(ctx))
}

func TestMultiLockReleaseReportsEveryFailure(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	a := built(locks.NewInterProcessMutex(c, "/multi-release/a"))
	b := built(locks.NewInterProcessMutex(c, "/multi-release/b"))
	d := built(locks.NewInterProcessSemaphoreMutex(c, "/multi-release/d"))
	ml := built(locks.NewInterProcessMultiLock(a, b, d))
	zktest.Must(t, b.Acquire(ctx))
	err := ml.Release(ctx)
	if !errors.Is(err, locks.ErrNotOwner) {
		t.Fatalf("Release with two locks not held = %v; want ErrNotOwner", err)
	}
	for _, s := range []string{"lock 0", "/multi-release/a", "lock 2", "/multi-release/d"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("Release error %q does not mention %q", err, s)
		}
	}
	if strings.Contains(err.Error(), "lock 1") {
		t.Errorf("Release error %q reports the lock that was held", err)
	}
	if b.IsAcquiredInThisProcess() {
		t.Fatal("the held lock was not released")
	}
	waitParticipants(t, b, 0)
}

func TestMultiLockBadInput(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	var nilMutex *locks.InterProcessMutex
	for i, l := range [][]locks.Lock{
		{nil},
		{built(locks.NewInterProcessMutex(c, "/a")), nilMutex},
	} {
		want := fmt.Sprintf("lock %d of %d is nil", i, i+1)
		ml, err := locks.NewInterProcessMultiLock(l...)
		if ml != nil || !errors.Is(err, locks.ErrInvalidArgument) || !strings.Contains(err.Error(), want) {
			t.Errorf("NewInterProcessMultiLock = %v, %v; want an error matching ErrInvalidArgument saying %q", ml, err, want)
		}
	}
	ml := built(locks.NewInterProcessMultiLock(built(locks.NewInterProcessMutex(c, "/a"))))
	if _, err := ml.TryAcquire(ctx, -time.Second); err == nil || !strings.Contains(err.Error(), "-1s") {
		t.Errorf("TryAcquire(-1s) = %v; want an error naming the wait", err)
	}
}
