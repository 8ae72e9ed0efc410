package interop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Event kinds of java/LeaderCommands.java.
const (
	kindLeader    = "LEADER"     // <handle>: a Curator LeaderLatch leads
	kindNotLeader = "NOT_LEADER" // <handle>: it stopped leading
	kindTaken     = "TAKEN"      // <handle>: a Curator LeaderSelector's takeLeadership began
	kindYielded   = "YIELDED"    // <handle>: takeLeadership returned on leader.yield
	kindClosed    = "CLOSED"     // <handle>: the latch or selector closed
)

// javaLatch starts a Curator LeaderLatch; its LEADER events come on the Call.
func javaLatch(t *testing.T, ctx context.Context, h *Helper, handle, path, id string) *Call {
	t.Helper()
	c, err := h.Send("leader.latch", handle, path, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Await(ctx, KindOK); err != nil {
		t.Fatal(err)
	}
	return c
}

// javaSelector starts an auto-requeueing Curator LeaderSelector; its TAKEN
// and YIELDED events come on the Call.
func javaSelector(t *testing.T, ctx context.Context, h *Helper, handle, path, id string) *Call {
	t.Helper()
	c, err := h.Send("leader.selector", handle, path, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Await(ctx, KindOK); err != nil {
		t.Fatal(err)
	}
	return c
}

// javaParticipants returns Curator's getParticipants as "id:isLeader" words.
func javaParticipants(ctx context.Context, h *Helper, handle string) ([]string, error) {
	e, err := h.Do(ctx, KindParticipants, "leader.participants", handle)
	if err != nil || e.Field(1) == "-" {
		return nil, err
	}
	return strings.Split(e.Field(1), ","), nil
}

// goParticipants formats ours the same way.
func goParticipants(ps []leader.Participant, err error) ([]string, error) {
	var out []string
	for _, p := range ps {
		leads := "false"
		if p.Leader {
			leads = "true"
		}
		out = append(out, p.ID+":"+leads)
	}
	return out, err
}

// agree waits until Go and Curator report want as the participants.
func agree(t *testing.T, ctx context.Context, h *Helper, handle string, goSide func(context.Context) ([]leader.Participant, error), want ...string) {
	t.Helper()
	waitFor(t, ctx, "participants "+strings.Join(want, ","), func() (bool, error) {
		java, err := javaParticipants(ctx, h, handle)
		if err != nil {
			return false, err
		}
		ours, err := goParticipants(goSide(ctx))
		return slices.Equal(java, want) && slices.Equal(ours, want), err
	})
}

// awaitTerm waits for a Go latch to lead.
func awaitTerm(t *testing.T, ctx context.Context, l *leader.LeaderLatch) leader.Term {
	t.Helper()
	term, err := l.Await(ctx)
	if err != nil {
		t.Fatalf("%s: Await: %v", l.ID(), err)
	}
	return term
}

// A Curator LeaderLatch and a zkcurator LeaderLatch on one path agree on who
// leads and on the participants, and hand over both ways on close and when
// the leader's process dies (SIGKILL for Java; for Go, a partition that
// freezes it, which the server cannot tell from a kill).
func TestLeaderLatchAcrossLanguages(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 90*time.Second)
	const path = "/interop/leader/latch"
	java := StartHelper(t, srv.ConnectString())

	jl := javaLatch(t, ctx, java, "j1", path, "java-1")
	if _, err := jl.Await(ctx, kindLeader); err != nil {
		t.Fatal(err)
	}
	gl, err := leader.NewLeaderLatch(newGoClient(t, srv.ConnectString()), path, "go-1")
	leaderMust(t, err)
	leaderMust(t, gl.Start())
	defer gl.Close(context.Background())
	agree(t, ctx, java, "j1", gl.Participants, "java-1:true", "go-1:false")
	if ldr, err := gl.Leader(ctx); err != nil || ldr.ID != "java-1" {
		t.Fatalf("Go's Leader() = %+v, %v; want java-1", ldr, err)
	}
	if gl.HasLeadership() {
		t.Fatal("Go leads while Curator does")
	}

	// Java closes (notifying its listener): Go leads.
	if _, err := java.Do(ctx, kindClosed, "leader.close", "j1", "notify"); err != nil {
		t.Fatal(err)
	}
	if _, err := jl.Await(ctx, kindNotLeader); err != nil {
		t.Fatal(err)
	}
	first := awaitTerm(t, ctx, gl)

	// A second Java latch queues behind Go; Go closes: Java leads.
	jl2 := javaLatch(t, ctx, java, "j2", path, "java-2")
	agree(t, ctx, java, "j2", gl.Participants, "go-1:true", "java-2:false")
	leaderMust(t, gl.Close(ctx))
	if cause := context.Cause(first.Context()); !errors.Is(cause, leader.ErrClosed) {
		t.Fatalf("Go term after Close: %v", cause)
	}
	if _, err := jl2.Await(ctx, kindLeader); err != nil {
		t.Fatal(err)
	}

	// Java's process is killed while it leads: Go leads within its session timeout.
	gl2, err := leader.NewLeaderLatch(newGoClient(t, srv.ConnectString()), path, "go-2")
	leaderMust(t, err)
	leaderMust(t, gl2.Start())
	defer gl2.Close(context.Background())
	agree(t, ctx, java, "j2", gl2.Participants, "java-2:true", "go-2:false")
	killed := now()
	if err := java.Kill(); err != nil {
		t.Fatal(err)
	}
	second := awaitTerm(t, ctx, gl2)
	if took, limit := now().Sub(killed), java.SessionTimeout()+expiryMargin; took > limit {
		t.Fatalf("Go led %v after Curator's leader was killed, want within %v", took, limit)
	}
	if second.Token <= first.Token {
		t.Fatalf("token %d after %d", second.Token, first.Token)
	}

	// Go's leader is cut off from the ensemble: its term ends before
	// Curator leads, and Curator leads once the server expires Go's session.
	proxy, err := zktest.NewProxy(srv.ConnectString())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	leaderMust(t, gl2.Close(ctx))
	gl3, err := leader.NewLeaderLatch(newGoClient(t, proxy.Addr()), path, "go-3")
	leaderMust(t, err)
	leaderMust(t, gl3.Start())
	defer gl3.Close(context.Background())
	third := awaitTerm(t, ctx, gl3)
	java2 := StartHelper(t, srv.ConnectString())
	jl3 := javaLatch(t, ctx, java2, "j3", path, "java-3")
	agree(t, ctx, java2, "j3", gl3.Participants, "go-3:true", "java-3:false")
	proxy.Pause()
	frozen := now()
	var ended time.Time
	select {
	case <-third.Done():
		ended = now()
	case <-ctx.Done():
		t.Fatal("Go's term outlived the partition")
	}
	led, err := jl3.Await(ctx, kindLeader)
	if err != nil {
		t.Fatal(err)
	}
	if !ended.Before(led.At) {
		t.Fatalf("Curator led at %v, before Go's term ended at %v", led.At, ended)
	}
	if took, limit := led.At.Sub(frozen), goSessionTimeout+expiryMargin; took > limit {
		t.Fatalf("Curator led %v after Go's leader froze, want within %v", took, limit)
	}
	t.Logf("Go's term ended %v after the partition; Curator led %v after it", ended.Sub(frozen), led.At.Sub(frozen))
	proxy.Resume()
}

// A Curator LeaderSelector and a zkcurator LeaderSelector take turns on one
// path, agree on the participants, and take over when the leader's process
// is killed.
func TestLeaderSelectorAcrossLanguages(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 90*time.Second)
	const path = "/interop/leader/selector"
	java := StartHelper(t, srv.ConnectString())
	js := javaSelector(t, ctx, java, "s1", path, "java-1")
	if _, err := js.Await(ctx, kindTaken); err != nil {
		t.Fatal(err)
	}

	terms := make(chan leader.Term, 8)
	yield := make(chan struct{}, 8)
	gs, err := leader.NewLeaderSelector(newGoClient(t, srv.ConnectString()), path, "go-1",
		func(ctx context.Context, term leader.Term) error {
			terms <- term
			select {
			case <-yield:
			case <-ctx.Done():
			}
			return nil
		}, leader.WithAutoRequeue())
	leaderMust(t, err)
	leaderMust(t, gs.Start())
	defer gs.Close(context.Background())
	agree(t, ctx, java, "s1", gs.Participants, "java-1:true", "go-1:false")

	// Java yields: Go leads; Java queues again behind Go.
	if _, err := java.Do(ctx, KindOK, "leader.yield", "s1"); err != nil {
		t.Fatal(err)
	}
	var first leader.Term
	select {
	case first = <-terms:
	case <-ctx.Done():
		t.Fatal("Go did not lead after Curator yielded")
	}
	agree(t, ctx, java, "s1", gs.Participants, "go-1:true", "java-1:false")

	// Go yields: Java leads.
	taken := len(js.Events(kindTaken))
	yield <- struct{}{}
	waitFor(t, ctx, "Curator leads again", func() (bool, error) { return len(js.Events(kindTaken)) > taken, nil })
	if gs.HasLeadership() {
		t.Fatal("Go leads while Curator does")
	}
	if cause := context.Cause(first.Context()); !errors.Is(cause, leader.ErrTermEnded) {
		t.Fatalf("Go term after its function returned: %v", cause)
	}

	// Java is killed while it leads: Go leads within its session timeout.
	killed := now()
	if err := java.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case second := <-terms:
		if took, limit := now().Sub(killed), java.SessionTimeout()+expiryMargin; took > limit {
			t.Fatalf("Go led %v after Curator's leader was killed, want within %v", took, limit)
		}
		if second.Token <= first.Token {
			t.Fatalf("token %d after %d", second.Token, first.Token)
		}
	case <-ctx.Done():
		t.Fatal("Go did not lead after Curator's leader was killed")
	}
}

func leaderMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
