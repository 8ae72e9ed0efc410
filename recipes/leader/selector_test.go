package leader_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// termLog records the terms selectors run, checking that no two overlap.
type termLog struct {
	mu      sync.Mutex
	inside  string
	tokens  []int64
	whos    []string
	overlap string
}

// run is a LeadFunc body: it records the term for its length.
func (g *termLog) run(who string, hold time.Duration) leader.LeadFunc {
	return func(ctx context.Context, term leader.Term) error {
		g.mu.Lock()
		if g.inside != "" {
			g.overlap = g.inside + " and " + who
		}
		g.inside = who
		g.tokens = append(g.tokens, term.Token)
		g.whos = append(g.whos, who)
		g.mu.Unlock()
		select {
		case <-time.After(hold):
		case <-ctx.Done():
		}
		g.mu.Lock()
		g.inside = ""
		g.mu.Unlock()
		return nil
	}
}

func (g *termLog) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.tokens)
}

// Three auto-requeueing selectors take turns: never two functions at once,
// tokens strictly increasing, everyone leads, and no node is left after Close.
func TestSelectorTakesTurnsWithIncreasingTokens(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	const dir = "/selector/turns"
	obs := zkclient.New(t, srv.ConnectString())
	var g termLog
	var sels []*leader.LeaderSelector
	for _, id := range []string{"a", "b", "c"} {
		s := newSelector(t, zkclient.New(t, srv.ConnectString()), dir, id, g.run(id, 20*time.Millisecond), leader.WithAutoRequeue())
		zktest.Must(t, s.Start())
		sels = append(sels, s)
	}
	zktest.Eventually(t, 20*time.Second, "12 terms", func() bool { return g.count() >= 12 })
	ps, err := sels[0].Participants(ctx)
	zktest.Must(t, err)
	for _, p := range ps {
		if !slices.Contains([]string{"a", "b", "c"}, p.ID) || !strings.Contains(p.Node, "lock-") {
			t.Fatalf("participant %+v", p)
		}
	}
	for _, s := range sels {
		zktest.Must(t, s.Close(ctx))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.overlap != "" {
		t.Fatalf("%s led at once", g.overlap)
	}
	for i := 1; i < len(g.tokens); i++ {
		if g.tokens[i] <= g.tokens[i-1] {
			t.Fatalf("token %d after %d (terms %v)", g.tokens[i], g.tokens[i-1], g.tokens)
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		if !slices.Contains(g.whos, id) {
			t.Fatalf("%s never led: %v", id, g.whos)
		}
	}
	// A waiting selector's Close leaves no node behind, though its node's
	// delete may outlast Close when the mutex's clean-up grace runs out (it
	// goes on as a guaranteed delete); only a leader's node is gone by then.
	zktest.Eventually(t, 20*time.Second, "no node left after Close", func() bool { return len(children(t, obs, dir)) == 0 })
}

// Without WithAutoRequeue the function runs once; Requeue asks for another turn.
func TestSelectorRunsOncePerRequeue(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	runs := make(chan leader.Term, 4)
	s := newSelector(t, zkclient.New(t, srv.ConnectString()), "/selector/once", "x",
		func(ctx context.Context, term leader.Term) error {
			runs <- term
			return errors.New("done, with an error that is only logged")
		})
	zktest.Must(t, s.Start())
	defer s.Close(ctx)
	first := <-runs
	select {
	case term := <-runs:
		t.Fatalf("a second run %+v without Requeue", term)
	case <-time.After(300 * time.Millisecond):
	}
	if cause := context.Cause(first.Context()); !errors.Is(cause, leader.ErrTermEnded) {
		t.Fatalf("term after the function returned: %v, want ErrTermEnded", cause)
	}
	queued, err := s.Requeue()
	zktest.Must(t, err)
	if !queued {
		t.Fatal("Requeue reported an existing request")
	}
	select {
	case second := <-runs:
		if second.Token <= first.Token {
			t.Fatalf("token %d after %d", second.Token, first.Token)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no run after Requeue")
	}
}

// The leader's lock node deleted by hand cancels its function's context
// with ErrLeadershipLost, and the next selector leads.
func TestSelectorLeaderNodeDeletedByHand(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	const dir = "/selector/deleted"
	op := zkclient.New(t, srv.ConnectString())
	terms := make(chan leader.Term, 4)
	causes := make(chan error, 4)
	fn := func(ctx context.Context, term leader.Term) error {
		terms <- term
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return nil
	}
	a := newSelector(t, zkclient.New(t, srv.ConnectString()), dir, "a", fn)
	zktest.Must(t, a.Start())
	defer a.Close(ctx)
	first := <-terms
	b := newSelector(t, zkclient.New(t, srv.ConnectString()), dir, "b", fn)
	zktest.Must(t, b.Start())
	defer b.Close(ctx)
	waitChildren(t, op, dir, 2)
	if !a.HasLeadership() || b.HasLeadership() {
		t.Fatalf("HasLeadership a=%v b=%v", a.HasLeadership(), b.HasLeadership())
	}

	zktest.Must(t, op.Delete(ctx, first.Node))
	select {
	case cause := <-causes:
		if !errors.Is(cause, leader.ErrLeadershipLost) {
			t.Fatalf("cause %v, want ErrLeadershipLost", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the function's context outlived its lock node")
	}
	select {
	case second := <-terms:
		if second.Token <= first.Token {
			t.Fatalf("token %d after %d", second.Token, first.Token)
		}
		ldr, err := a.Leader(ctx)
		zktest.Must(t, err)
		if ldr.ID != "b" {
			t.Fatalf("leader %+v, want b", ldr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("b did not lead")
	}
}

// Under the standard policy a leader cut off from the ensemble sees its
// context cancelled on Suspended; Close while leading cancels with
// ErrClosed and deletes the node once the function returns; Close while
// waiting leaves no node.
func TestSelectorLossAndClose(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const dir = "/selector/loss"
	obs := zkclient.New(t, srv.ConnectString())
	terms := make(chan leader.Term, 4)
	fn := func(ctx context.Context, term leader.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	}
	a := newSelector(t, zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession)), dir, "a", fn)
	zktest.Must(t, a.Start())
	first := <-terms
	b := newSelector(t, zkclient.New(t, srv.ConnectString()), dir, "b", fn)
	zktest.Must(t, b.Start())
	waitChildren(t, obs, dir, 2)

	proxy.Pause()
	if cause := waitEnded(t, first, 2*shortSession); !errors.Is(cause, leader.ErrLeadershipLost) {
		t.Fatalf("cause %v, want ErrLeadershipLost", cause)
	}
	second := <-terms
	proxy.Resume()
	if second.Token <= first.Token {
		t.Fatalf("token %d after %d", second.Token, first.Token)
	}
	zktest.Must(t, a.Close(ctx)) // a waits no more: it has no turn left
	zktest.Must(t, b.Close(ctx))
	if cause := waitEnded(t, second, time.Second); !errors.Is(cause, leader.ErrClosed) {
		t.Fatalf("cause %v, want ErrClosed", cause)
	}
	waitChildren(t, obs, dir, 0)

	// A selector closed while it waits for the lock leaves no node behind.
	holder := newSelector(t, obs, dir, "holder", fn)
	zktest.Must(t, holder.Start())
	<-terms
	waiter := newSelector(t, zkclient.New(t, srv.ConnectString()), dir, "waiter", fn)
	zktest.Must(t, waiter.Start())
	waitChildren(t, obs, dir, 2)
	zktest.Must(t, waiter.Close(ctx))
	ps, err := holder.Participants(ctx)
	zktest.Must(t, err)
	if !slices.Equal(ids(ps), []string{"holder"}) {
		t.Fatalf("participants after the waiter closed: %v", ids(ps))
	}
	zktest.Must(t, holder.Close(ctx))
	waitChildren(t, obs, dir, 0)
}

// Bad input is reported before any request; Start, Requeue and Close out
// of order get the lifecycle errors.
func TestSelectorBadInputAndLifecycle(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	ctx := zktest.TestContext(t)
	fn := func(ctx context.Context, _ leader.Term) error { <-ctx.Done(); return nil }
	proxy.ResetCounts()
	for _, tc := range []struct {
		c          *framework.Client
		path, id   string
		fn         leader.LeadFunc
		wantInText string
	}{
		{c, "", "x", fn, "empty"},
		{c, "no/slash", "x", fn, `"no/slash"`},
		{c, "/", "x", fn, `"/"`},
		{c, "/ok", "", fn, "empty participant id"},
		{c, "/ok", "x", nil, "nil leader function"},
		{nil, "/ok", "x", fn, "nil client"},
	} {
		s, err := leader.NewLeaderSelector(tc.c, tc.path, tc.id, tc.fn)
		if !errors.Is(err, leader.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.wantInText) || s != nil {
			t.Errorf("NewLeaderSelector(%q, %q) = %v, %v; want nil and ErrInvalidArgument naming %s", tc.path, tc.id, s, err, tc.wantInText)
		}
	}
	if _, err := leader.NewLeaderSelector(c, "/ok", "x", fn, nil); !errors.Is(err, leader.ErrInvalidArgument) || !strings.Contains(err.Error(), "option 0") {
		t.Errorf("nil option: %v", err)
	}
	if n := proxy.RequestCount(zktest.OpCreate) + proxy.RequestCount(zktest.OpGetChildren2) + proxy.RequestCount(zktest.OpGetChildren); n != 0 {
		t.Fatalf("%d requests for bad input", n)
	}
	s := newSelector(t, c, "/life", "x", fn)
	if _, err := s.Requeue(); !errors.Is(err, leader.ErrNotStarted) {
		t.Fatalf("Requeue before Start: %v", err)
	}
	zktest.Must(t, s.Start())
	if err := s.Start(); !errors.Is(err, leader.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v", err)
	}
	zktest.Must(t, s.Close(ctx))
	if err := s.Close(ctx); err != nil {
		t.Fatalf("second Close: %v, want nil", err)
	}
	if _, err := s.Requeue(); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Requeue after Close: %v", err)
	}
}

// A leader on a slow connection that is cut off ends its term on
// Suspended, without waiting for a request to give up.
func TestSelectorLossOnASlowConnection(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	terms := make(chan leader.Term, 1)
	s := newSelector(t, c, "/selector/slow-watch", "x", func(ctx context.Context, term leader.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	})
	// Every request takes 200 ms.
	proxy.SetLatency(100 * time.Millisecond)
	zktest.Must(t, s.Start())
	defer s.Close(ctx)
	term := <-terms
	proxy.Pause()
	paused := time.Now()
	if cause := waitEnded(t, term, 5*time.Second); !errors.Is(cause, leader.ErrLeadershipLost) {
		t.Fatalf("cause %v, want ErrLeadershipLost", cause)
	}
	if took := time.Since(paused); took > 2*shortSession {
		t.Fatalf("the term ended %v after the partition, want by the Suspended state (within %v)", took, 2*shortSession)
	}
	proxy.SetLatency(0)
	proxy.Resume()
}
