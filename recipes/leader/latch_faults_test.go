package leader_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Under the standard error policy a leader cut off from the ensemble loses
// its term on Suspended, long before the server expires its session and the
// next participant leads; it queues again behind that one.
func TestLatchLeaderLosesTermOnSuspended(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const dir = "/latch/suspended"
	// go-zookeeper reports the partition after two thirds of the session
	// and the server expires it after all of it: the last third is how late
	// the check that b does not lead yet may run on a loaded machine, so it
	// is two seconds here rather than shortSession's half second.
	const session = 4 * shortSession
	a := startLatch(t, zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(session)), dir, "a")
	first := await(t, a, 10*time.Second)
	b := startLatch(t, zkclient.New(t, srv.ConnectString()), dir, "b")
	zktest.Eventually(t, 10*time.Second, "b queued", func() bool {
		ps, err := b.Participants(ctx)
		return err == nil && len(ps) == 2
	})

	proxy.Pause()
	paused := time.Now()
	cause := waitEnded(t, first, 2*session)
	lostAfter := time.Since(paused)
	if !errors.Is(cause, leader.ErrLeadershipLost) {
		t.Fatalf("term ended with %v, want ErrLeadershipLost", cause)
	}
	if b.HasLeadership() {
		t.Fatal("b leads before a's session expired")
	}
	second := await(t, b, 3*session+5*time.Second)
	t.Logf("a lost its term %v after the partition, b led %v after it", lostAfter, time.Since(paused))
	proxy.Resume()
	if second.Token <= first.Token {
		t.Fatalf("token %d after %d", second.Token, first.Token)
	}
	zktest.Eventually(t, 10*time.Second, "a queued again behind b", func() bool {
		ps, err := b.Participants(ctx)
		return err == nil && slices.Equal(ids(ps), []string{"b", "a"})
	})
}

// Under the session error policy a suspension shorter than the session
// timeout keeps the term; the loss of the session ends it.
func TestLatchSessionPolicyKeepsTermThroughShortSuspension(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	const dir = "/latch/session-policy"
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(3*time.Second),
		framework.WithErrorPolicy(framework.SessionErrorPolicy))
	a := startLatch(t, c, dir, "a")
	term := await(t, a, 10*time.Second)

	suspended := make(chan struct{}, 8)
	stop := c.Listen(func(s framework.ConnectionState) {
		if s == framework.Suspended {
			suspended <- struct{}{}
		}
	})
	defer stop()
	proxy.Sever()
	select {
	case <-suspended:
	case <-time.After(5 * time.Second):
		t.Fatal("no Suspended after the connection was severed")
	}
	zktest.Eventually(t, 10*time.Second, "reconnected", func() bool { return c.State() == framework.Reconnected })
	if term.Context().Err() != nil || !a.HasLeadership() {
		t.Fatalf("term ended by a short suspension under the session policy: %v", context.Cause(term.Context()))
	}

	proxy.Pause()
	if cause := waitEnded(t, term, 3*3*time.Second); !errors.Is(cause, leader.ErrLeadershipLost) {
		t.Fatalf("term ended with %v, want ErrLeadershipLost", cause)
	}
	proxy.Resume()
	next := await(t, a, 15*time.Second)
	if next.Token <= term.Token || next.Node == term.Node {
		t.Fatalf("next term %s token %d after %s token %d", next.Node, next.Token, term.Node, term.Token)
	}
	if got := owner(t, c, next.Node); got != c.SessionID() {
		t.Fatalf("next term's node owned by 0x%x, client session 0x%x", got, c.SessionID())
	}
}

// A waiting participant's client gives its session up (simulated expiry)
// while the server still keeps its node. When the leader leaves, that old
// node is the lowest: the latch must not lead through it in its new session,
// but delete it and lead through a node of the new session.
func TestLatchNeverLeadsThroughAGivenUpSessionsNode(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const dir = "/latch/given-up"
	obs := zkclient.New(t, srv.ConnectString())
	b := startLatch(t, zkclient.New(t, srv.ConnectString()), dir, "b")
	first := await(t, b, 10*time.Second)
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second),
		framework.WithSimulatedSessionExpirationPercent(25))
	a := startLatch(t, c, dir, "a")
	var oldNode string
	zktest.Eventually(t, 10*time.Second, "a queued", func() bool {
		ps, err := b.Participants(ctx)
		if err == nil && len(ps) == 2 {
			oldNode = ps[1].Node
		}
		return oldNode != ""
	})

	lost := make(chan struct{}, 8)
	stop := c.Listen(func(s framework.ConnectionState) {
		if s == framework.Lost {
			lost <- struct{}{}
		}
	})
	defer stop()
	ends := proxy.ClientEnds()
	proxy.Pause()
	select {
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not give its session up")
	}
	// The client closes its old connection on a goroutine of its own; await
	// that, or go-zookeeper may resume the old session on Resume and hit its
	// lastZxid data race (see the report of issue 16: a framework matter
	// this test stays clear of).
	zktest.Eventually(t, 10*time.Second, "the client closes its given-up connection", func() bool { return proxy.ClientEnds() > ends })
	// Discard what the pause held, so that the old session's close never
	// reaches the server, and let the leader go meanwhile.
	proxy.Sever()
	zktest.Must(t, b.Close(ctx))
	proxy.Resume()
	term := await(t, a, 10*time.Second)
	if term.Node == oldNode || owner(t, obs, term.Node) != c.SessionID() || term.Token <= first.Token {
		t.Fatalf("a leads through %s (token %d, owner 0x%x); the given-up node was %s, session now 0x%x",
			term.Node, term.Token, owner(t, obs, term.Node), oldNode, c.SessionID())
	}
	if got := owner(t, obs, oldNode); got != 0 {
		t.Fatalf("the given-up session's node %s still stands (owner 0x%x)", oldNode, got)
	}
}

// Close during a partition returns within its context's time, not when
// the partition ends or a delete under way gives up; the guaranteed delete
// removes the node once the connection is back.
func TestLatchCloseDuringAPartitionReturnsInTime(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	const dir = "/latch/close-partitioned"
	obs := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	l := startLatch(t, c, dir, "a")
	term := await(t, l, 10*time.Second)

	proxy.Pause()
	waitEnded(t, term, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	err := l.Close(ctx)
	took := time.Since(start)
	t.Logf("Close in a partition: %v after %v", err, took)
	// The ctx's second plus room for a loaded machine, still well below the
	// connection timeout (15 s) after which a delete under way gives up.
	if bound := 4 * time.Second; took > bound {
		t.Fatalf("Close took %v in a partition, want within %v", took, bound)
	}
	proxy.Resume()
	waitChildren(t, obs, dir, 0)
}
