package locks_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Leases and the session rule: a lease node counts only while the session
// that created it is the client's current one.

// givenUpSessionOptions make a client give its session up (simulated expiry)
// after about 2 s of Suspended, while the server keeps the session's nodes
// for 8 s: the window in which a given-up session's nodes still stand.
func givenUpSessionOptions() []framework.Option {
	return []framework.Option{framework.WithSessionTimeout(8 * time.Second), framework.WithSimulatedSessionExpirationPercent(25)}
}

// A waiter whose lease node belongs to the session its client gave up must not
// be granted through that node, although the node is the only child once the
// holder has returned its lease: it deletes it and takes the lease with a node
// of its current session.
func TestSemaphoreWaiterNeverGrantedThroughAGivenUpSessionsNode(t *testing.T) {
	const semPath = "/sem-session/given-up"
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	holderClient := zkclient.New(t, srv.ConnectString())
	p := zktest.StartProxy(t, srv.ConnectString())
	waiterClient := zkclient.New(t, p.Addr(), givenUpSessionOptions()...)

	holder := built(locks.NewInterProcessSemaphoreV2(holderClient, semPath, 1))
	waiter := built(locks.NewInterProcessSemaphoreV2(waiterClient, semPath, 1))
	held, err := holder.Acquire(ctx)
	zktest.Must(t, err)
	type result struct {
		lease *locks.Lease
		err   error
	}
	got := make(chan result, 1)
	go func() {
		l, err := waiter.Acquire(ctx)
		got <- result{l, err}
	}()
	old := waitLeases(t, holder, 2)[1]
	oldSession := waiterClient.SessionID()

	givenUpSession(t, p, waiterClient, func() { zktest.Must(t, held.Close(ctx)) })
	r := receive(t, got, "the waiter's Acquire")
	zktest.Must(t, r.err)
	defer func() { zktest.Must(t, r.lease.Close(ctx)) }()

	if waiterClient.SessionID() == oldSession {
		t.Fatal("the waiter's client kept its session: the test did not give it up")
	}
	if r.lease.Path() == old {
		t.Fatalf("the waiter was granted through %s, a node of the session it gave up", old)
	}
	assertNodeOfSession(t, waiterClient, r.lease.Path())
	zktest.Eventually(t, 10*time.Second, "the given-up lease node deleted", func() bool {
		stat, err := holderClient.Exists(ctx, old)
		return err == nil && stat == nil
	})
	select {
	case <-r.lease.Lost():
		t.Fatal("the new lease's Lost channel is closed")
	default:
	}
}

// cleanGauge counts the leases held by holders that have not seen Lost.
type cleanGauge struct {
	gauge
	wg sync.WaitGroup
}

// hold counts lease as clean until it is lost or release is closed, then
// closes the lease.
func (g *cleanGauge) hold(ctx context.Context, t *testing.T, lease *locks.Lease, release <-chan struct{}) {
	select {
	case <-lease.Lost():
		_ = lease.Close(ctx)
		return
	default:
	}
	g.add(1)
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		select {
		case <-lease.Lost():
		case <-release:
		}
		g.add(-1)
		if err := lease.Close(ctx); err != nil {
			t.Errorf("close %s: %v", lease.Path(), err)
		}
	}()
}

// While a waiter's client gives its session up and the old session's nodes
// still stand, a third client queues as well: among holders that have not
// seen Lost, never more than maxLeases hold at once, and everyone gets a
// lease in the end. The later holders keep their leases until the server has
// expired the given-up session, when a lease granted through its node would
// free a slot for someone else.
func TestSemaphoreNeverOverGrantsAcrossAGivenUpSession(t *testing.T) {
	const semPath = "/sem-session/over-grant"
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	holderClient := zkclient.New(t, srv.ConnectString())
	waiterClient := zkclient.New(t, p.Addr(), givenUpSessionOptions()...)
	thirdClient := zkclient.New(t, srv.ConnectString())
	sems := map[string]*locks.InterProcessSemaphoreV2{
		"holder": built(locks.NewInterProcessSemaphoreV2(holderClient, semPath, 1)),
		"waiter": built(locks.NewInterProcessSemaphoreV2(waiterClient, semPath, 1)),
		"third":  built(locks.NewInterProcessSemaphoreV2(thirdClient, semPath, 1)),
	}
	var g cleanGauge
	first, later := make(chan struct{}), make(chan struct{})
	held, err := sems["holder"].Acquire(ctx)
	zktest.Must(t, err)
	g.hold(ctx, t, held, first)

	granted := make(chan string, 2)
	acquire := func(name string) {
		go func() {
			lease, err := sems[name].Acquire(ctx)
			if err != nil {
				t.Errorf("%s: Acquire: %v", name, err)
			} else {
				g.hold(ctx, t, lease, later)
			}
			granted <- name
		}()
	}
	acquire("waiter")
	old := waitLeases(t, sems["holder"], 2)[1]
	givenUpSession(t, p, waiterClient, func() {
		acquire("third")
		close(first)
	})
	zktest.Eventually(t, 20*time.Second, "the given-up session's lease node gone", func() bool {
		stat, err := holderClient.Exists(ctx, old)
		return err == nil && stat == nil
	})
	time.Sleep(300 * time.Millisecond) // the later holders' work: a window for a second grant
	close(later)
	receive(t, granted, "the first of the waiter's and the third client's Acquire")
	receive(t, granted, "the second of the waiter's and the third client's Acquire")
	g.wg.Wait()
	if _, maxSeen := g.read(); maxSeen > 1 {
		t.Fatalf("%d leases held at once by holders that had not seen Lost; maxLeases is 1", maxSeen)
	}
}
