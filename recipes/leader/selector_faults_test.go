package leader_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Under the session error policy a selector keeps its term through a
// suspension shorter than the session timeout, and loses it when its
// client declares the session Lost; it then leads again through a node of
// the new session, with a higher token.
func TestSelectorSessionPolicyLosesTermOnLost(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const session = 3 * time.Second
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(session),
		framework.WithErrorPolicy(framework.SessionErrorPolicy))
	terms := make(chan leader.Term, 4)
	s := newSelector(t, c, "/selector/session-policy", "a", func(ctx context.Context, term leader.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	}, leader.WithAutoRequeue())
	zktest.Must(t, s.Start())
	defer s.Close(ctx)
	var term leader.Term
	select {
	case term = <-terms:
	case <-time.After(10 * time.Second):
		t.Fatal("the selector did not lead")
	}

	states := make(chan framework.ConnectionState, 16)
	stop := c.Listen(func(s framework.ConnectionState) { states <- s })
	defer stop()
	proxy.Sever()
	awaitState(t, states, framework.Suspended, 5*time.Second)
	awaitState(t, states, framework.Reconnected, 10*time.Second)
	if term.Context().Err() != nil || !s.HasLeadership() {
		t.Fatalf("a short suspension ended the term under the session policy: %v", context.Cause(term.Context()))
	}

	proxy.Pause()
	if cause := waitEnded(t, term, 3*session); !errors.Is(cause, leader.ErrLeadershipLost) {
		t.Fatalf("term ended with %v, want ErrLeadershipLost", cause)
	}
	if s.HasLeadership() {
		t.Fatal("HasLeadership true after the session was lost")
	}
	proxy.Resume()
	select {
	case next := <-terms:
		if next.Token <= term.Token || next.Node == term.Node {
			t.Fatalf("next term %s token %d after %s token %d", next.Node, next.Token, term.Node, term.Token)
		}
		if got := owner(t, c, next.Node); got != c.SessionID() {
			t.Fatalf("next term's node owned by 0x%x, client session 0x%x", got, c.SessionID())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the selector did not lead again after the session was lost")
	}
}

// awaitState waits for state on states, within d.
func awaitState(t *testing.T, states <-chan framework.ConnectionState, want framework.ConnectionState, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %s within %v", want, d)
		}
	}
}
