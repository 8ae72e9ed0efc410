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

// The client calls its state listeners one after another, so a listener
// registered before a latch's or selector's own holds theirs back; these
// tests use one to freeze the news of a state change between the client,
// whose State and SessionID have already moved, and the recipe. What the
// recipe answers meanwhile must still be certain.

// stallListeners registers a listener on c that blocks the client's
// listener calls from the first time it is told of state at, until the test
// ends. It returns a channel closed once the calls are blocked.
func stallListeners(t *testing.T, c *framework.Client, at framework.ConnectionState) <-chan struct{} {
	t.Helper()
	stalled, release := make(chan struct{}), make(chan struct{})
	blocked := false
	stop := c.Listen(func(s framework.ConnectionState) {
		if s != at || blocked {
			return
		}
		blocked = true
		close(stalled)
		<-release
	})
	// Cleanups run last first: this one before the client's Close, which
	// waits for a listener call under way.
	t.Cleanup(func() {
		close(release)
		stop()
	})
	return stalled
}

// awaitStalled waits until the listeners are blocked.
func awaitStalled(t *testing.T, stalled <-chan struct{}, d time.Duration) {
	t.Helper()
	select {
	case <-stalled:
	case <-time.After(d):
		t.Fatalf("no state change reached the listeners within %v", d)
	}
}

// A leader whose client is Suspended has no certain leadership, even
// before the latch has heard of it: HasLeadership is false and Await waits
// rather than return the term.
func TestLatchAwaitWaitsOutASuspensionNotYetDelivered(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, proxy.Addr())
	stalled := stallListeners(t, c, framework.Suspended)
	l := startLatch(t, c, "/latch/suspension-in-flight", "a")
	term := await(t, l, 10*time.Second)

	proxy.Pause()
	defer proxy.Resume()
	awaitStalled(t, stalled, 10*time.Second)
	if term.Context().Err() != nil {
		t.Fatal("the term ended: the stalled listener did not hold the news back")
	}
	if l.HasLeadership() {
		t.Fatal("HasLeadership true while the client is Suspended")
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if got, err := l.Await(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Await while the client is Suspended: term %s (token %d, live %v), %v; want it to wait",
			got.Node, got.Token, got.Context().Err() == nil, err)
	}
}

// A selector whose client is Suspended under the standard error policy does
// not have leadership, even before the news has reached its lock.
func TestSelectorHasLeadershipFalseWhileSuspended(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, proxy.Addr())
	stalled := stallListeners(t, c, framework.Suspended)
	terms := make(chan leader.Term, 1)
	s := newSelector(t, c, "/selector/suspension-in-flight", "a", func(ctx context.Context, term leader.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	})
	zktest.Must(t, s.Start())
	defer s.Close(ctx)
	select {
	case <-terms:
	case <-time.After(10 * time.Second):
		t.Fatal("the selector did not lead")
	}
	if !s.HasLeadership() {
		t.Fatal("HasLeadership false while leading")
	}

	proxy.Pause()
	defer proxy.Resume()
	awaitStalled(t, stalled, 10*time.Second)
	if s.HasLeadership() {
		t.Fatal("HasLeadership true while the client is Suspended")
	}
}

// A selector whose client gave its session up and runs on a new one does
// not have leadership through the old session's lock node at any moment,
// even before the news has reached it.
func TestSelectorHasLeadershipFalseOnceItsSessionIsGone(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second),
		framework.WithSimulatedSessionExpirationPercent(25))
	stalled := stallListeners(t, c, framework.Suspended)
	terms := make(chan leader.Term, 1)
	s := newSelector(t, c, "/selector/session-in-flight", "a", func(ctx context.Context, term leader.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	})
	zktest.Must(t, s.Start())
	defer s.Close(ctx)
	var term leader.Term
	select {
	case term = <-terms:
	case <-time.After(10 * time.Second):
		t.Fatal("the selector did not lead")
	}
	old := c.SessionID()

	ends := proxy.ClientEnds()
	proxy.Pause()
	awaitStalled(t, stalled, 10*time.Second)
	zktest.Eventually(t, 10*time.Second, "the client gives its session up", func() bool { return c.State() == framework.Lost })
	// As in TestLatchNeverLeadsThroughAGivenUpSessionsNode: await the old
	// connection's close, and discard what the pause held.
	zktest.Eventually(t, 10*time.Second, "the client closes its given-up connection", func() bool { return proxy.ClientEnds() > ends })
	proxy.Sever()
	proxy.Resume()
	// Until the term has ended and the new session is up, HasLeadership
	// must never answer true once the session is new: it is read after
	// the session, which never comes back.
	deadline := time.Now().Add(10 * time.Second)
	for polls := 0; ; polls++ {
		sid := c.SessionID()
		fresh := sid != 0 && sid != old
		if fresh && s.HasLeadership() {
			t.Fatalf("HasLeadership true on session 0x%x through a lock node of session 0x%x (poll %d)", sid, old, polls)
		}
		if fresh && c.State().IsConnected() && term.Context().Err() != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10s: session 0x%x (was 0x%x), state %v, term cause %v", sid, old, c.State(), context.Cause(term.Context()))
		}
		time.Sleep(time.Millisecond) // polling a race window, not waiting for a condition
	}
}
