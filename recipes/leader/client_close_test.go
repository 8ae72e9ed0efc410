package leader_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// awaitNoGoroutinesBut waits until no goroutine is left beyond those that
// ignore covers (goleak.Find itself retries for a while).
func awaitNoGoroutinesBut(t *testing.T, what string, ignore goleak.Option) {
	t.Helper()
	var err error
	for range 3 {
		if err = goleak.Find(ignore); err == nil {
			return
		}
	}
	t.Fatalf("%s: %v", what, err)
}

// closeAtOnce bounds a Close after the client closed. The Close promises to
// return at once; one that waited on its ctx (a minute) or a connection
// timeout (15 s) would still fail, and 3 s leaves room for a loaded machine.
const closeAtOnce = 3 * time.Second

// A leading latch whose client is closed under it ends its term, reports
// the end on the Leadership channel, answers HasLeadership false, fails
// Await with the client's ErrClosed and stops its goroutine, all before the
// latch itself is closed; Close then returns at once.
func TestLatchTermEndsWhenTheClientCloses(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	before := goleak.IgnoreCurrent()
	c := zkclient.New(t, srv.ConnectString())
	l := newLatch(t, c, "/latch/client-closes", "a")
	zktest.Must(t, l.Start())
	var term leader.Term
	select {
	case term = <-l.Leadership():
	case <-time.After(10 * time.Second):
		t.Fatal("no term on the Leadership channel")
	}

	zktest.Must(t, c.Close())
	cause := waitEnded(t, term, 5*time.Second)
	if !errors.Is(cause, leader.ErrLeadershipLost) || !errors.Is(cause, framework.ErrClosed) {
		t.Fatalf("term ended with %v, want ErrLeadershipLost and framework.ErrClosed", cause)
	}
	select {
	case ch, ok := <-l.Leadership():
		if !ok || ch.Leader {
			t.Fatalf("Leadership after the client closed: %+v (open %v), want the end of leadership", ch, ok)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the end of leadership was not reported")
	}
	if l.HasLeadership() {
		t.Fatal("HasLeadership true after the client closed")
	}
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := l.Await(short); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Await on a closed client: %v, want framework.ErrClosed", err)
	}
	awaitNoGoroutinesBut(t, "the latch's goroutine ended with its client", before)

	closed := time.Now()
	zktest.Must(t, l.Close(ctx))
	if took := time.Since(closed); took > closeAtOnce {
		t.Fatalf("Close took %v after the client closed, want within %v", took, closeAtOnce)
	}
}

// A leading selector whose client is closed under it cancels its
// function's context, does not queue again (WithAutoRequeue notwithstanding)
// and stops its goroutines before the selector is closed; Close then
// returns at once.
func TestSelectorTermEndsWhenTheClientCloses(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	before := goleak.IgnoreCurrent()
	c := zkclient.New(t, srv.ConnectString())
	terms := make(chan leader.Term, 4)
	returned := make(chan struct{}, 4)
	s := newSelector(t, c, "/selector/client-closes", "a", func(ctx context.Context, term leader.Term) error {
		terms <- term
		<-ctx.Done()
		returned <- struct{}{}
		return nil
	}, leader.WithAutoRequeue())
	zktest.Must(t, s.Start())
	var term leader.Term
	select {
	case term = <-terms:
	case <-time.After(10 * time.Second):
		t.Fatal("the selector did not lead")
	}

	zktest.Must(t, c.Close())
	cause := waitEnded(t, term, 5*time.Second)
	if !errors.Is(cause, leader.ErrLeadershipLost) || !errors.Is(cause, framework.ErrClosed) {
		t.Fatalf("term ended with %v, want ErrLeadershipLost and framework.ErrClosed", cause)
	}
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("the function did not return")
	}
	if s.HasLeadership() {
		t.Fatal("HasLeadership true after the client closed")
	}
	awaitNoGoroutinesBut(t, "the selector's goroutines ended with its client", before)
	select {
	case again := <-terms:
		t.Fatalf("a term %+v on a closed client", again)
	default:
	}
	if _, err := s.Requeue(); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Requeue on a closed client: %v, want framework.ErrClosed", err)
	}

	closed := time.Now()
	zktest.Must(t, s.Close(ctx))
	if took := time.Since(closed); took > closeAtOnce {
		t.Fatalf("Close took %v after the client closed, want within %v", took, closeAtOnce)
	}
}

// A latch or selector started on a closed client says so at Start, with
// the client's ErrClosed, and is not started; a Close of it, and a second
// Close, return nil.
func TestStartOnAClosedClient(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	zktest.Must(t, c.Close())

	l := newLatch(t, c, "/latch/closed-client", "a")
	if err := l.Start(); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("latch Start on a closed client: %v, want framework.ErrClosed", err)
	}
	if _, err := l.Await(ctx); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Await on a closed client: %v, want framework.ErrClosed", err)
	}
	s := newSelector(t, c, "/selector/closed-client", "a", func(ctx context.Context, _ leader.Term) error { return nil })
	if err := s.Start(); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("selector Start on a closed client: %v, want framework.ErrClosed", err)
	}
	if _, err := s.Requeue(); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Requeue on a closed client: %v, want framework.ErrClosed", err)
	}
	for i := range 2 {
		if err := l.Close(ctx); err != nil {
			t.Fatalf("latch Close %d: %v, want nil", i+1, err)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatalf("selector Close %d: %v, want nil", i+1, err)
		}
	}
	if _, open := <-l.Leadership(); open {
		t.Fatal("the Leadership channel is open after Close")
	}
	if err := l.Start(); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("latch Start after Close: %v, want ErrClosed", err)
	}
}
