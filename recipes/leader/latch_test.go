package leader_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Three latches on three clients: one leads, the others queue in order with
// their ids in Curator's node format, and closing the leader hands over to
// the next with a higher token, until no node is left.
func TestLatchElectsOneLeaderAndHandsOverOnClose(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	const dir = "/latch/handover"
	obs := zkclient.New(t, srv.ConnectString())
	var latches []*leader.LeaderLatch
	for _, id := range []string{"a", "b", "c"} {
		latches = append(latches, startLatch(t, zkclient.New(t, srv.ConnectString()), dir, id))
		waitChildren(t, obs, dir, len(latches))
	}
	for _, name := range children(t, obs, dir) {
		if !protection.IsProtected(name) || !strings.Contains(name, "latch-") {
			t.Fatalf("latch node %q is not a protected latch- node", name)
		}
	}
	var last int64
	for i, l := range latches {
		term := await(t, l, 10*time.Second)
		for _, other := range latches[i+1:] {
			if other.HasLeadership() {
				t.Fatalf("%s and %s lead at once", l.ID(), other.ID())
			}
		}
		if !l.HasLeadership() || term.Token <= last {
			t.Fatalf("%s: HasLeadership %v, token %d after %d", l.ID(), l.HasLeadership(), term.Token, last)
		}
		last = term.Token
		ps, err := l.Participants(ctx)
		zktest.Must(t, err)
		if got, want := ids(ps), []string{"a", "b", "c"}[i:]; !slices.Equal(got, want) {
			t.Fatalf("participants %v, want %v", got, want)
		}
		ldr, err := latches[len(latches)-1].Leader(ctx)
		zktest.Must(t, err)
		if ldr.ID != l.ID() || ldr.Node != term.Node || !ldr.Leader {
			t.Fatalf("Leader() = %+v, want %s at %s", ldr, l.ID(), term.Node)
		}
		zktest.Must(t, l.Close(ctx))
		if cause := waitEnded(t, term, time.Second); !errors.Is(cause, leader.ErrClosed) {
			t.Fatalf("term ended with %v, want ErrClosed", cause)
		}
		if l.HasLeadership() {
			t.Fatalf("%s leads after Close", l.ID())
		}
	}
	if ch := children(t, obs, dir); len(ch) != 0 {
		t.Fatalf("nodes left after every latch closed: %v", ch)
	}
	if _, err := latches[0].Leader(ctx); !errors.Is(err, leader.ErrNoLeader) {
		t.Fatalf("Leader with nobody queued: %v, want ErrNoLeader", err)
	}
}

// An operator deletes the leader's node: its term ends at once with
// ErrLeadershipLost, the next participant leads, and the deposed one queues
// again behind it with a new node.
func TestLatchLeaderNodeDeletedByHand(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	const dir = "/latch/deleted"
	op := zkclient.New(t, srv.ConnectString())
	a := startLatch(t, zkclient.New(t, srv.ConnectString()), dir, "a")
	first := await(t, a, 10*time.Second)
	b := startLatch(t, zkclient.New(t, srv.ConnectString()), dir, "b")
	waitChildren(t, op, dir, 2)

	zktest.Must(t, op.Delete(ctx, first.Node))
	if cause := waitEnded(t, first, 5*time.Second); !errors.Is(cause, leader.ErrLeadershipLost) {
		t.Fatalf("term ended with %v, want ErrLeadershipLost", cause)
	}
	second := await(t, b, 10*time.Second)
	if second.Token <= first.Token {
		t.Fatalf("token %d after %d", second.Token, first.Token)
	}
	zktest.Eventually(t, 10*time.Second, "a queued again behind b", func() bool {
		ps, err := b.Participants(ctx)
		return err == nil && slices.Equal(ids(ps), []string{"b", "a"}) && ps[1].Node != first.Node
	})
	if a.HasLeadership() {
		t.Fatal("a leads after its node was deleted")
	}
}

// Close during Await ends the Await with ErrClosed and leaves no node; an
// Await whose ctx ends returns the ctx's error and the latch stays queued.
func TestLatchCloseDuringAwaitAndAwaitCancelled(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	const dir = "/latch/await"
	obs := zkclient.New(t, srv.ConnectString())
	holder := startLatch(t, obs, dir, "holder")
	await(t, holder, 10*time.Second)
	waiter := startLatch(t, zkclient.New(t, srv.ConnectString()), dir, "waiter")
	waitChildren(t, obs, dir, 2)

	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := waiter.Await(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Await past its deadline: %v, want DeadlineExceeded", err)
	}
	if n := len(children(t, obs, dir)); n != 2 {
		t.Fatalf("%d nodes after a cancelled Await, want the waiter still queued (2)", n)
	}

	got := make(chan error, 1)
	go func() {
		_, err := waiter.Await(ctx)
		got <- err
	}()
	zktest.Must(t, waiter.Close(ctx))
	select {
	case err := <-got:
		if !errors.Is(err, leader.ErrClosed) {
			t.Fatalf("Await during Close: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Await still waiting after Close")
	}
	ps, err := holder.Participants(ctx)
	zktest.Must(t, err)
	if !slices.Equal(ids(ps), []string{"holder"}) {
		t.Fatalf("participants after the waiter closed: %v", ids(ps))
	}
}

// A latch closed while its node is being created, before it could even
// queue, leaves no node behind.
func TestLatchCloseRightAfterStartLeavesNoNode(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	for i := 0; i < 5; i++ {
		l := newLatch(t, c, "/latch/quick", "q")
		zktest.Must(t, l.Start())
		zktest.Must(t, l.Close(ctx))
	}
	waitChildren(t, c, "/latch/quick", 0)
}

// The Leadership channel carries term changes; CloseNotifyLeader reports
// the end of leadership before the channel closes, CloseSilent does not.
func TestLatchLeadershipChannelAndCloseModes(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	for _, tc := range []struct {
		mode       leader.CloseMode
		wantNotice bool
	}{{leader.CloseSilent, false}, {leader.CloseNotifyLeader, true}} {
		l := startLatch(t, c, "/latch/modes", "m", leader.WithCloseMode(tc.mode))
		var term leader.Term
		select {
		case term = <-l.Leadership():
		case <-time.After(10 * time.Second):
			t.Fatal("no term on the Leadership channel")
		}
		if !term.Leader || term.Token == 0 || term.Context().Err() != nil {
			t.Fatalf("first change %+v, want a live term", term)
		}
		zktest.Must(t, l.Close(ctx))
		var notices int
		for ch := range l.Leadership() {
			if ch.Leader {
				t.Fatalf("mode %d: a term after Close: %+v", tc.mode, ch)
			}
			notices++
		}
		if (notices == 1) != tc.wantNotice || notices > 1 {
			t.Fatalf("mode %d: %d end-of-leadership changes, want notice %v", tc.mode, notices, tc.wantNotice)
		}
		if term.Context().Err() == nil {
			t.Fatalf("mode %d: term live after Close", tc.mode)
		}
	}
}

// Bad input is reported before any request, naming the value; Start,
// Close and Await out of order get the lifecycle errors.
func TestLatchBadInputAndLifecycle(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	ctx := zktest.TestContext(t)
	proxy.ResetCounts()
	for _, tc := range []struct {
		c          *framework.Client
		path, id   string
		wantInText string
	}{
		{c, "", "x", "empty"},
		{c, "relative", "x", `"relative"`},
		{c, "/a/", "x", `"/a/"`},
		{c, "/", "x", `"/"`},
		{c, "/ok", "", "empty participant id"},
		{nil, "/ok", "x", "nil client"},
	} {
		l, err := leader.NewLeaderLatch(tc.c, tc.path, tc.id)
		if !errors.Is(err, leader.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.wantInText) || l != nil {
			t.Errorf("NewLeaderLatch(%q, %q) = %v, %v; want nil and ErrInvalidArgument naming %s", tc.path, tc.id, l, err, tc.wantInText)
		}
	}
	if n := proxy.RequestCount(zktest.OpCreate) + proxy.RequestCount(zktest.OpGetChildren2) + proxy.RequestCount(zktest.OpGetChildren); n != 0 {
		t.Fatalf("%d requests for bad input", n)
	}
	if _, err := leader.NewLeaderLatch(c, "/ok", "x", leader.WithCloseMode(7)); !errors.Is(err, leader.ErrInvalidArgument) || !strings.Contains(err.Error(), "7") {
		t.Fatalf("unknown close mode: %v", err)
	}
	if _, err := leader.NewLeaderLatch(c, "/ok", "x", nil); !errors.Is(err, leader.ErrInvalidArgument) || !strings.Contains(err.Error(), "option 0") {
		t.Fatalf("nil option: %v", err)
	}

	l := newLatch(t, c, "/life", "x")
	if _, err := l.Await(ctx); !errors.Is(err, leader.ErrNotStarted) {
		t.Fatalf("Await before Start: %v", err)
	}
	zktest.Must(t, l.Start())
	if err := l.Start(); !errors.Is(err, leader.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v", err)
	}
	zktest.Must(t, l.Close(ctx))
	if err := l.Close(ctx); err != nil {
		t.Fatalf("second Close: %v, want nil", err)
	}
	if err := l.Start(); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	if _, err := l.Await(ctx); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Await after Close: %v", err)
	}
}
