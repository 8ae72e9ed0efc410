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

// A latch with WithManualStepDown whose term ends on a suspension (within
// its session) keeps its node after it reconnects: the next participant
// does not lead until StepDown, then leads, and the latch queues again
// behind it.
func TestLatchManualStepDownKeepsNodeUntilStepDown(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const dir = "/latch/manual-step-down"
	const session = 6 * time.Second
	ca := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(session))
	reconnected := make(chan struct{}, 8)
	stop := ca.Listen(func(s framework.ConnectionState) {
		if s == framework.Reconnected {
			reconnected <- struct{}{}
		}
	})
	defer stop()
	a := startLatch(t, ca, dir, "a", leader.WithManualStepDown())
	first := await(t, a, 10*time.Second)
	b := startLatch(t, zkclient.New(t, srv.ConnectString()), dir, "b")
	zktest.Eventually(t, 10*time.Second, "b queued", func() bool {
		ps, err := b.Participants(ctx)
		return err == nil && len(ps) == 2
	})

	proxy.Pause()
	cause := waitEnded(t, first, 2*session)
	proxy.Resume()
	if !errors.Is(cause, leader.ErrLeadershipLost) {
		t.Fatalf("term ended with %v, want ErrLeadershipLost", cause)
	}
	select {
	case <-reconnected:
	case <-time.After(session):
		t.Fatal("a's client did not reconnect within its session")
	}
	// Without the option the latch deletes its node the moment it is
	// connected again, and b leads one notification later.
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if term, err := b.Await(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b led (token %d, %v) before a stepped down", term.Token, err)
	}
	if owner(t, ca, first.Node) != ca.SessionID() {
		t.Fatalf("a's node %s is gone before StepDown", first.Node)
	}
	a.StepDown(first)
	second := await(t, b, 10*time.Second)
	if second.Token <= first.Token {
		t.Fatalf("token %d after %d", second.Token, first.Token)
	}
	zktest.Eventually(t, 10*time.Second, "a queued again behind b", func() bool {
		ps, err := b.Participants(ctx)
		return err == nil && slices.Equal(ids(ps), []string{"b", "a"})
	})
}

// StepDown of a live term ends it and gives its node up; StepDown of a
// term that is not the latch's latest does nothing.
func TestLatchStepDownOfALiveTerm(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	const dir = "/latch/step-down-live"
	c := zkclient.New(t, srv.ConnectString())
	a := startLatch(t, c, dir, "a", leader.WithManualStepDown())
	first := await(t, a, 10*time.Second)
	b := startLatch(t, zkclient.New(t, srv.ConnectString()), dir, "b")
	zktest.Eventually(t, 10*time.Second, "b queued", func() bool {
		ps, err := b.Participants(ctx)
		return err == nil && len(ps) == 2
	})
	a.StepDown(leader.Term{Leader: true, Node: first.Node, Token: first.Token + 1})
	if first.Context().Err() != nil {
		t.Fatal("StepDown of another term ended the current one")
	}
	a.StepDown(first)
	if cause := waitEnded(t, first, 5*time.Second); !errors.Is(cause, leader.ErrTermEnded) {
		t.Fatalf("term ended with %v, want ErrTermEnded", cause)
	}
	await(t, b, 10*time.Second)
	zktest.Eventually(t, 10*time.Second, "a queued again behind b", func() bool {
		ps, err := b.Participants(ctx)
		return err == nil && slices.Equal(ids(ps), []string{"b", "a"})
	})
}
