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

// A server restart (on a server of the test's own) ends a latch's and a
// selector's terms on Suspended; once the server is back each leads again
// with a higher token through a single node of its own (the old one is
// gone), and closing them leaves no node.
func TestLatchAndSelectorLeadAgainAfterAServerRestart(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const latchDir, selectorDir = "/restart/latch", "/restart/selector"
	opt := framework.WithSessionTimeout(6 * time.Second)
	obs := zkclient.New(t, srv.ConnectString(), opt)
	l := startLatch(t, zkclient.New(t, srv.ConnectString(), opt), latchDir, "l")
	terms := make(chan leader.Term, 4)
	s := newSelector(t, zkclient.New(t, srv.ConnectString(), opt), selectorDir, "s",
		func(ctx context.Context, term leader.Term) error {
			terms <- term
			<-ctx.Done()
			return nil
		}, leader.WithAutoRequeue())
	zktest.Must(t, s.Start())
	defer s.Close(ctx)
	latchTerm := await(t, l, 10*time.Second)
	var selectorTerm leader.Term
	select {
	case selectorTerm = <-terms:
	case <-time.After(10 * time.Second):
		t.Fatal("the selector did not lead")
	}

	zktest.Must(t, srv.Restart())
	for _, term := range []leader.Term{latchTerm, selectorTerm} {
		if cause := waitEnded(t, term, 10*time.Second); !errors.Is(cause, leader.ErrLeadershipLost) {
			t.Fatalf("term %s ended with %v, want ErrLeadershipLost", term.Node, cause)
		}
	}
	next := await(t, l, 20*time.Second)
	if next.Token <= latchTerm.Token || next.Node == latchTerm.Node {
		t.Fatalf("latch leads again through %s token %d after %s token %d", next.Node, next.Token, latchTerm.Node, latchTerm.Token)
	}
	select {
	case again := <-terms:
		if again.Token <= selectorTerm.Token || again.Node == selectorTerm.Node {
			t.Fatalf("selector leads again through %s token %d after %s token %d", again.Node, again.Token, selectorTerm.Node, selectorTerm.Token)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the selector did not lead again after the restart")
	}
	waitChildren(t, obs, latchDir, 1)
	waitChildren(t, obs, selectorDir, 1)

	zktest.Must(t, l.Close(ctx))
	zktest.Must(t, s.Close(ctx))
	waitChildren(t, obs, latchDir, 0)
	waitChildren(t, obs, selectorDir, 0)
}
