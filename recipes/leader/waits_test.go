package leader_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// waitSlack is how much later than its ctx's deadline a call may return in
// these tests. The calls promise a few milliseconds; a call that ignored its
// ctx would return no sooner than the default connection timeout (15 s)
// without a server, or two thirds of the 10 s session (Suspended) in a
// partition, minus the deadline of at most 2 s: 3 s still tells the two apart
// and leaves room for a loaded machine.
const waitSlack = 3 * time.Second

// within runs call with a ctx that ends after d and fails the test unless
// it returns an error matching context.DeadlineExceeded, that names want
// and carries the package prefix once, within d plus waitSlack.
func within(t *testing.T, what string, d time.Duration, want string, call func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	began := time.Now()
	err := call(ctx)
	took := time.Since(began)
	if took > d+waitSlack {
		t.Errorf("%s took %v with a wait of %v", what, took, d)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v, want context.DeadlineExceeded saying %q", what, err, want)
	}
	zktest.PrefixOnce(t, "leader: ", what, err)
	return err
}

// Without a server, every call that waits returns by its ctx's deadline
// with an error that says what it waited for, although the client's retry
// policy would go on for a minute.
func TestWaitsAreBoundedWithoutAServer(t *testing.T) {
	c := zkclient.Unreachable(t, zkclient.SlowRetryPolicy)
	const wait = 2 * time.Second
	l := newLatch(t, c, "/waits/latch", "a")
	zktest.Must(t, l.Start())
	within(t, "Await", wait, "waiting for leadership (the client has not connected yet)", func(ctx context.Context) error {
		_, err := l.Await(ctx)
		return err
	})
	within(t, "latch Participants", wait, "participants of /waits/latch", func(ctx context.Context) error {
		_, err := l.Participants(ctx)
		return err
	})
	within(t, "latch Leader", wait, "participants of /waits/latch", func(ctx context.Context) error {
		_, err := l.Leader(ctx)
		return err
	})
	s := newSelector(t, c, "/waits/selector", "a", func(ctx context.Context, _ leader.Term) error {
		<-ctx.Done()
		return nil
	})
	zktest.Must(t, s.Start())
	within(t, "selector Participants", wait, "participants of /waits/selector", func(ctx context.Context) error {
		_, err := s.Participants(ctx)
		return err
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	zktest.Must(t, l.Close(ctx)) // the latch has no node to delete
	zktest.Must(t, s.Close(ctx))
}

// In a partition, Await of a queued latch, the latch's Close and the
// selector's Close return by their ctx's deadline, saying what they waited
// for: leadership, the node's deletion, the lock node's deletion.
func TestWaitsAreBoundedInAPartition(t *testing.T) {
	srv := shared.Server(t)
	proxy := newProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const dir, sdir = "/waits/partition-latch", "/waits/partition-selector"
	obs := zkclient.New(t, srv.ConnectString())
	holder := startLatch(t, obs, dir, "holder")
	await(t, holder, 10*time.Second)
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	l := startLatch(t, c, dir, "queued")
	waitChildren(t, obs, dir, 2)

	terms := make(chan leader.Term, 1)
	returned := make(chan struct{})
	s := newSelector(t, c, sdir, "a", func(ctx context.Context, term leader.Term) error {
		terms <- term
		<-ctx.Done()
		close(returned)
		return nil
	})
	zktest.Must(t, s.Start())
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	select {
	case <-terms:
	case <-ctx.Done():
		t.Fatal("the selector did not lead")
	}

	proxy.Pause()
	defer proxy.Resume()
	const wait = 2 * time.Second
	within(t, "Await", wait, "waiting for leadership", func(ctx context.Context) error {
		_, err := l.Await(ctx)
		return err
	})
	within(t, "latch Close", wait, `close latch "`+dir+`"`, func(ctx context.Context) error { return l.Close(ctx) })
	err := within(t, "selector Close", wait, "still waiting for the lock node's deletion", func(ctx context.Context) error { return s.Close(ctx) })
	select {
	case <-returned:
	default:
		t.Fatalf("selector Close said %q before the function returned", err)
	}
}
