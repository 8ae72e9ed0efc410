package locks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Each way a lease's Lost channel closes, and each way it stays open.

// assertNotLost fails the test if l's Lost channel is closed.
func assertNotLost(t *testing.T, l *locks.Lease, when string) {
	t.Helper()
	select {
	case <-l.Lost():
		t.Fatalf("%s: Lost is closed", when)
	default:
	}
}

func TestLeaseLostOnSuspendedUnderTheStandardPolicy(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(8*time.Second))
	lease, err := built(locks.NewInterProcessSemaphoreV2(c, "/lease-lost/suspended", 2)).Acquire(ctx)
	zktest.Must(t, err)
	assertNotLost(t, lease, "a fresh lease")

	awaitState(t, c, framework.Suspended, p.Sever)
	if !closedWithin(lease.Lost(), 5*time.Second) {
		t.Fatal("Lost stayed open after Suspended under the standard error policy")
	}
	zktest.Must(t, c.BlockUntilConnected(ctx))
	zktest.Must(t, lease.Close(ctx))
}

// Under the session policy a Suspended within the session keeps the lease;
// the client giving the session up closes Lost.
func TestLeaseLostOnlyWithTheSessionUnderTheSessionPolicy(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	opts := append(givenUpSessionOptions(), framework.WithErrorPolicy(framework.SessionErrorPolicy))
	c := zkclient.New(t, p.Addr(), opts...)
	lease, err := built(locks.NewInterProcessSemaphoreV2(c, "/lease-lost/session", 2)).Acquire(ctx)
	zktest.Must(t, err)

	session := c.SessionID()
	awaitState(t, c, framework.Reconnected, p.Sever)
	if c.SessionID() != session {
		t.Fatal("the client reconnected with a new session: the test did not stay within the session")
	}
	assertNotLost(t, lease, "after Suspended and Reconnected within the session")

	givenUpSession(t, p, c, func() {})
	if !closedWithin(lease.Lost(), 5*time.Second) {
		t.Fatal("Lost stayed open after the client gave the lease's session up")
	}
	zktest.Must(t, lease.Close(ctx))
}

func TestLeaseLostWhenItsNodeIsDeleted(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	lease, err := built(locks.NewInterProcessSemaphoreV2(c, "/lease-lost/deleted", 1)).Acquire(ctx)
	zktest.Must(t, err)

	zktest.Must(t, admin.Delete(ctx, lease.Path()))
	if !closedWithin(lease.Lost(), 5*time.Second) {
		t.Fatal("Lost stayed open after the lease node was deleted")
	}
	zktest.Must(t, lease.Close(ctx))
}

func TestLeaseLostOnClose(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	sem := built(locks.NewInterProcessSemaphoreV2(c, "/lease-lost/close", 1))
	lease, err := sem.Acquire(ctx)
	zktest.Must(t, err)
	p := lease.Path()

	zktest.Must(t, lease.Close(ctx))
	assertClosed(t, lease.Lost(), "Lost after Close")
	zktest.Must(t, lease.Close(ctx)) // a second Close does nothing
	if lease.Path() != p {
		t.Fatalf("Path after Close = %q; want %q", lease.Path(), p)
	}
	if nodes := leaseChildren(t, c, "/lease-lost/close"); len(nodes) != 0 {
		t.Fatalf("lease nodes after Close: %v", nodes)
	}
}

// A lease whose client closes before the lease does reports Lost, and its
// watcher ends (goleak checks the rest).
func TestLeaseLostWhenItsClientCloses(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	lease, err := built(locks.NewInterProcessSemaphoreV2(c, "/lease-lost/client-close", 1)).Acquire(ctx)
	zktest.Must(t, err)

	zktest.Must(t, c.Close())
	if !closedWithin(lease.Lost(), 5*time.Second) {
		t.Fatal("Lost stayed open after the client closed")
	}
	_ = lease.Close(ctx) // the client is closed: the node went with its session
}

func TestNilLeaseIsSane(t *testing.T) {
	var lease *locks.Lease
	assertClosed(t, lease.Lost(), "a nil lease's Lost")
	if err := lease.Close(context.Background()); err == nil {
		t.Fatal("Close on a nil lease returned nil")
	}
	if lease.Path() != "" || lease.NodeName() != "" {
		t.Fatalf("nil lease: Path %q, NodeName %q; want empty", lease.Path(), lease.NodeName())
	}
}

func TestLeaseCloseRejectsANilContext(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	lease, err := built(locks.NewInterProcessSemaphoreV2(c, "/lease-lost/nil-ctx", 1)).Acquire(ctx)
	zktest.Must(t, err)
	//nolint:staticcheck // a nil context is the bad input under test
	if err := lease.Close(nil); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("Close(nil) = %v; want an error naming the nil context", err)
	}
	assertNotLost(t, lease, "after a refused Close")
	zktest.Must(t, lease.Close(ctx))
}

// The semaphore mutex's Lost is its lease's: open while held and certain,
// closed when its lease node is deleted, after Release, and when not held.
func TestSemaphoreMutexLost(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	admin := zkclient.New(t, srv.ConnectString())
	m := built(locks.NewInterProcessSemaphoreMutex(zkclient.New(t, srv.ConnectString()), "/lease-lost/mutex"))
	assertClosed(t, m.Lost(), "Lost before Acquire")

	zktest.Must(t, m.Acquire(ctx))
	select {
	case <-m.Lost():
		t.Fatal("Lost is closed while the lock is held")
	default:
	}
	leases, _, err := admin.Children(ctx, "/lease-lost/mutex/leases")
	zktest.Must(t, err)
	if len(leases) != 1 {
		t.Fatalf("lease nodes %v; want one", leases)
	}
	zktest.Must(t, admin.Delete(ctx, "/lease-lost/mutex/leases/"+leases[0]))
	select {
	case <-m.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost stayed open after the lease node was deleted")
	}
	zktest.Must(t, m.Release(ctx))
	assertClosed(t, m.Lost(), "Lost after Release")
}

// A semaphore mutex handle that acquires again after its lease was lost
// closes the lost lease: its listener and its count go with it.
func TestSemaphoreMutexClosesItsLostLeaseOnTheNextAcquire(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const mutexPath = "/lease-lost/again"
	rec := metricstest.New()
	m := built(locks.NewInterProcessSemaphoreMutex(zkclient.New(t, srv.ConnectString(), framework.WithMetrics(rec)), mutexPath))
	admin := zkclient.New(t, srv.ConnectString())
	zktest.Must(t, m.Acquire(ctx))
	lost := m.Lost()
	nodes := awaitCount(t, admin, mutexPath+"/leases", 1)
	zktest.Must(t, admin.Delete(ctx, mutexPath+"/leases/"+nodes[0]))
	if !closedWithin(lost, 10*time.Second) {
		t.Fatal("Lost stayed open after the lease node was deleted")
	}
	zktest.Must(t, m.Acquire(ctx))
	if v := rec.Value(locks.MetricLeasesHeld); v != 1 {
		t.Fatalf("%s = %v after acquiring again once the lease was lost; want 1", locks.MetricLeasesHeld, v)
	}
	zktest.Must(t, m.Release(ctx))
	if v := rec.Value(locks.MetricLeasesHeld); v != 0 {
		t.Fatalf("%s = %v after the release; want 0", locks.MetricLeasesHeld, v)
	}
}
