package locks_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestMutexGoroutinesWithOwnHandlesOnOneClientExclude(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	mutexes := make([]*locks.InterProcessMutex, 10)
	for i := range mutexes {
		mutexes[i] = built(locks.NewInterProcessMutex(c, "/ten"))
	}
	var check locktest.Checker
	zktest.Must(t, locktest.Contend(ctx, mutexes, 5, time.Millisecond, &check))
	if v := check.Violations(); v != 0 || check.Entries() != 50 {
		t.Fatalf("violations %d, entries %d; want 0, 50", v, check.Entries())
	}
}

func TestMutexConcurrentFirstAcquisitionsThroughOneHandleCreateOneNode(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	m := built(locks.NewInterProcessMutex(c, "/shared-handle"))
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- m.Acquire(ctx) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		zktest.Must(t, err)
	}
	if nodes := waitParticipants(t, m, 1); nodes[0] != m.LockPath() {
		t.Fatalf("participants %v, our node %q", nodes, m.LockPath())
	}
	for i := 0; i < 5; i++ {
		zktest.Must(t, m.Release(ctx))
	}
	if err := m.Release(ctx); !errors.Is(err, locks.ErrNotOwner) || !strings.Contains(err.Error(), "you do not own the lock: /shared-handle") {
		t.Fatalf("sixth Release = %v, want ErrNotOwner naming the path", err)
	}
	waitParticipants(t, m, 0)
}

func TestMutexBadInputFailsWithoutTraffic(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	ctx := zktest.TestContext(t)
	proxy.ResetCounts()
	for _, tc := range []struct {
		name   string
		c      *framework.Client
		path   string
		driver locks.LockInternalsDriver
		want   string
	}{
		{"nil client", nil, "/a", locks.StandardLockInternalsDriver{}, "nil client"},
		{"relative path", c, "a/b", locks.StandardLockInternalsDriver{}, "a/b"},
		{"trailing slash", c, "/a/", locks.StandardLockInternalsDriver{}, "/a/"},
		{"nil driver", c, "/a", nil, "nil driver"},
		{"bad suffix digits", c, "/a", locks.UnfairLockInternalsDriver{SuffixDigits: -3}, "-3"},
	} {
		m, err := locks.NewInterProcessMutex(tc.c, tc.path, locks.WithDriver(tc.driver))
		if m != nil || !errors.Is(err, locks.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewInterProcessMutex = %v, %v; want an error matching ErrInvalidArgument naming %q", tc.name, m, err, tc.want)
		}
	}
	m := built(locks.NewInterProcessMutex(c, "/a"))
	if _, err := m.TryAcquire(ctx, -time.Second); err == nil || !strings.Contains(err.Error(), "-1s") {
		t.Errorf("TryAcquire(-1s) = %v, want an error naming the wait", err)
	}
	if err := locks.AttemptRevoke(ctx, c, "bad"); err == nil {
		t.Error("AttemptRevoke with a relative path succeeded")
	}
	for _, op := range []zktest.Op{zktest.OpCreate, zktest.OpCreateContainer, zktest.OpGetChildren2, zktest.OpSetData} {
		if n := proxy.RequestCount(op); n != 0 {
			t.Errorf("bad input sent %d %v requests", n, op)
		}
	}
}

func TestMutexContainerParentDisappearsAfterRelease(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithContainerCheckInterval(100*time.Millisecond))
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	m := built(locks.NewInterProcessMutex(c, "/containers/deep/lock"))
	zktest.Must(t, m.Acquire(ctx))
	zktest.Must(t, m.Release(ctx))
	zktest.Eventually(t, 10*time.Second, "container parents reaped", func() bool {
		stat, err := c.Exists(ctx, "/containers")
		return err == nil && stat == nil
	})
	// The lock still works after its parents were reaped.
	zktest.Must(t, m.Acquire(ctx))
	zktest.Must(t, m.Release(ctx))
}

func TestMutexUnderNamespace(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString(), framework.WithNamespace("tenant"))
	ctx := zktest.TestContext(t)
	m := built(locks.NewInterProcessMutex(c, "/jobs"))
	zktest.Must(t, m.Acquire(ctx))
	if !strings.HasPrefix(m.LockPath(), "/jobs/_c_") {
		t.Fatalf("LockPath() = %q, want it relative to the namespace", m.LockPath())
	}
	raw := zkclient.New(t, srv.ConnectString())
	children, _, err := raw.Children(ctx, "/tenant/jobs")
	zktest.Must(t, err)
	if len(children) != 1 || "/jobs/"+children[0] != m.LockPath() {
		t.Fatalf("/tenant/jobs children %v; want our node %s", children, m.LockPath())
	}
	other := built(locks.NewInterProcessMutex(c.UsingNamespace("other"), "/jobs"))
	ok, err := other.TryAcquire(ctx, 0)
	if !ok || err != nil {
		t.Fatalf("the same path in another namespace: TryAcquire = %v, %v; want true", ok, err)
	}
	zktest.Must(t, other.Release(ctx))
	zktest.Must(t, m.Release(ctx))
}

func TestMutexRevocation(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	holderClient := zkclient.New(t, srv.ConnectString())
	holder := built(locks.NewInterProcessMutex(holderClient, "/revocable"))
	revoked := make(chan struct{}, 2)
	holder.MakeRevocable(func() {
		revoked <- struct{}{}
		_ = holder.Release(context.Background())
	})
	zktest.Must(t, holder.Acquire(ctx))
	other := zkclient.New(t, srv.ConnectString())
	waiter := built(locks.NewInterProcessMutex(other, "/revocable"))
	nodes := waitParticipants(t, waiter, 1)
	zktest.Must(t, locks.AttemptRevoke(ctx, other, nodes[0]))
	select {
	case <-revoked:
	case <-time.After(10 * time.Second):
		t.Fatal("revocation callback not called")
	}
	zktest.Must(t, waiter.Acquire(ctx))
	zktest.Must(t, waiter.Release(ctx))
	if len(revoked) != 0 {
		t.Fatal("revocation callback called more than once")
	}
	// Revoking a node that is gone is not an error.
	zktest.Must(t, locks.AttemptRevoke(ctx, other, nodes[0]))
}

// TestMutexReleaseWakesOneWaiter: 50 waiters queue behind a holder. Each
// waiter watches its own node, its predecessor's node and, unless the
// predecessor is the lowest, its release signal. A release wakes only the next waiter (the
// server's watch count drops by that waiter's watches alone), and the queue
// drains without a single listing or read: every hand-off is one step.
func TestMutexReleaseWakesOneWaiter(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	holder := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/herd"))
	zktest.Must(t, holder.Acquire(ctx))
	waitersClient := zkclient.New(t, proxy.Addr())
	const waiters = 50
	handles := make([]*locks.InterProcessMutex, waiters)
	acquired := make(chan int, waiters)
	for i := range handles {
		handles[i] = built(locks.NewInterProcessMutex(waitersClient, "/herd"))
		go func(i int) {
			if err := handles[i].Acquire(ctx); err != nil {
				t.Errorf("waiter %d: %v", i, err)
			}
			acquired <- i
		}(i)
	}
	waitParticipants(t, holder, waiters+1)
	// Every waiter watches its own node and its predecessor's; the first
	// one's predecessor is the holder, the lowest node, whose deletion alone
	// decides, so only the others also watch a release signal. The paths
	// watched are the waiters+1 lock nodes and waiters-1 signals.
	const armed = 2 * waiters
	watches := func() int { return perfWatchedPaths(t, srv) }
	zktest.Eventually(t, 10*time.Second, "every waiter watching", func() bool { return watches() == armed })
	proxy.ResetCounts()
	zktest.Must(t, holder.Release(ctx))
	next := <-acquired
	if w := watches(); w != armed-1 {
		t.Errorf("after one release %d paths are watched; want %d (only the holder's node no longer)", w, armed-1)
	}
	// Drain: every waiter gets the lock in turn.
	zktest.Must(t, handles[next].Release(ctx))
	for i := 1; i < waiters; i++ {
		select {
		case j := <-acquired:
			zktest.Must(t, handles[j].Release(ctx))
		case <-time.After(20 * time.Second):
			t.Fatalf("only %d of %d waiters acquired", i, waiters)
		}
	}
	reads := proxy.RequestCount(zktest.OpGetChildren2) + proxy.RequestCount(zktest.OpGetChildren) +
		proxy.RequestCount(zktest.OpGetData) + proxy.RequestCount(zktest.OpExists)
	if reads != 0 {
		t.Errorf("%d hand-offs cost the waiters %d reads; want 0", waiters, reads)
	}
	if w := perfWatches(t, srv); w != 0 {
		t.Errorf("%d watches left after the queue drained; want 0", w)
	}
}
