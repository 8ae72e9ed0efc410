package locks_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Each way a mutex hold's Lost channel closes, and each way it stays open.

func TestMutexLostOnSuspendUnderStandardPolicy(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	m := built(locks.NewInterProcessMutex(c, "/lost-standard"))
	zktest.Must(t, m.Acquire(ctx))
	lost := m.Lost()
	proxy.Sever() // connection loss, well within the session
	select {
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("Lost() did not close on Suspended under the standard error policy")
	}
	zktest.Must(t, c.BlockUntilConnected(ctx))
	zktest.Must(t, m.Release(ctx))
	zktest.Must(t, m.Acquire(ctx))
	if m.Lost() == lost {
		t.Fatal("a new acquisition reused the old Lost channel")
	}
	select {
	case <-m.Lost():
		t.Fatal("the new hold's Lost() is closed")
	default:
	}
	zktest.Must(t, m.Release(ctx))
	select {
	case <-m.Lost():
	default:
		t.Fatal("Lost() is open when nothing is held")
	}
}

func TestMutexLostOnlyOnSessionLossUnderSessionPolicy(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	// go-zookeeper waits a second before redialing a lone server, so the
	// session must comfortably outlast a reconnect for Sever to stay a suspension.
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(3*time.Second), framework.WithErrorPolicy(framework.SessionErrorPolicy))
	m := built(locks.NewInterProcessMutex(c, "/lost-session"))
	zktest.Must(t, m.Acquire(ctx))

	states := make(chan framework.ConnectionState, 16)
	stop := c.Listen(func(s framework.ConnectionState) { states <- s })
	defer stop()
	awaitState := func(want framework.ConnectionState) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case s := <-states:
				if s == want {
					return
				}
			case <-deadline:
				t.Fatalf("no %v state", want)
			}
		}
	}
	proxy.Sever()
	awaitState(framework.Suspended)
	awaitState(framework.Reconnected)
	select {
	case <-m.Lost():
		t.Fatal("Lost() closed on a suspension under the session error policy")
	default:
	}
	proxy.Pause()
	awaitState(framework.Lost)
	select {
	case <-m.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost() did not close on Lost")
	}
	proxy.Resume()
	zktest.Must(t, m.Release(ctx))
}

func TestMutexLostWhenNodeFoundDeleted(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	m := built(locks.NewInterProcessMutex(c, "/deleted-under-us"))
	zktest.Must(t, m.Acquire(ctx))
	token := m.FencingToken()
	zktest.Must(t, c.Delete(ctx, m.LockPath()))
	if !closedWithin(m.Lost(), 10*time.Second) {
		t.Fatal("Lost() open 10s after the node was deleted")
	}
	if tok := m.FencingToken(); tok != token {
		t.Fatalf("FencingToken() = %d after the node was deleted, want the hold's own, %d", tok, token)
	}
	zktest.Must(t, m.Release(ctx))
}

// Closing the client ends its session and so the hold: the mutex's Lost and
// a lease's Lost close.
func TestLostClosesWhenTheClientCloses(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	m := built(locks.NewInterProcessMutex(c, "/lost-client-closed"))
	zktest.Must(t, m.Acquire(ctx))
	lease, err := built(locks.NewInterProcessSemaphoreV2(c, "/lost-client-closed-sem", 1)).Acquire(ctx)
	zktest.Must(t, err)
	zktest.Must(t, c.Close())
	if !closedWithin(m.Lost(), 10*time.Second) {
		t.Error("the mutex's Lost did not close when its client closed")
	}
	if !closedWithin(lease.Lost(), 10*time.Second) {
		t.Error("the lease's Lost did not close when its client closed")
	}
}
