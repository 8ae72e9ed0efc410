package shared_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/shared"
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
// it returns, within d plus waitSlack, an error that matches
// context.DeadlineExceeded (and ErrOutcomeUnknown when unknown is set),
// says want and carries the package prefix once.
func within(t *testing.T, what string, d time.Duration, want string, unknown bool, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	began := time.Now()
	err := call(ctx)
	if took := time.Since(began); took > d+waitSlack {
		t.Errorf("%s took %v with a wait of %v", what, took, d)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), want) || errors.Is(err, shared.ErrOutcomeUnknown) != unknown {
		t.Errorf("%s: %v, want context.DeadlineExceeded saying %q (outcome unknown: %v)", what, err, want, unknown)
	}
	zktest.PrefixOnce(t, "shared: ", what, err)
}

// Without a server, Start returns by its ctx's deadline although the
// client's retry policy would go on for a minute.
func TestWaitsAreBoundedWithoutAServer(t *testing.T) {
	c := zkclient.Unreachable(t, zkclient.SlowRetryPolicy)
	v, err := shared.NewSharedValue(c, "/waits/value", nil)
	zktest.Must(t, err)
	within(t, "SharedValue.Start", 1500*time.Millisecond, "create /waits/value", false, v.Start)
	n, err := shared.NewSharedCount(c, "/waits/count", 0)
	zktest.Must(t, err)
	within(t, "SharedCount.Start", 1500*time.Millisecond, "create /waits/count", false, n.Start)
	zktest.Must(t, v.Close())
	zktest.Must(t, n.Close())
}

// In a partition, Set, TrySet (whose write is then unknown) and the Start
// of another value return by their ctx's deadline.
func TestWaitsAreBoundedInAPartition(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	n, err := shared.NewSharedCount(c, "/waits/count", 1)
	zktest.Must(t, err)
	zktest.Must(t, n.Start(ctx))
	defer n.Close()
	other, err := shared.NewSharedValue(c, "/waits/other", nil)
	zktest.Must(t, err)
	defer other.Close()

	proxy.Pause()
	defer proxy.Resume()
	const wait = 1500 * time.Millisecond
	within(t, "Set", wait, "set /waits/count", false, func(ctx context.Context) error { return n.Set(ctx, 2) })
	within(t, "TrySet", wait, "try set /waits/count", true, func(ctx context.Context) error {
		_, err := n.TrySet(ctx, 3, n.VersionedValue().Version)
		return err
	})
	within(t, "Start", wait, "create /waits/other", false, other.Start)
}

// Start on a closed client fails with the client's ErrClosed before any
// request; a value started before its client closed fails Set and TrySet
// the same way; Close returns nil however often it is called.
func TestSharedOnAClosedClient(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	started, err := shared.NewSharedCount(c, "/closed/started", 1)
	zktest.Must(t, err)
	zktest.Must(t, started.Start(ctx))
	zktest.Must(t, c.Close())
	proxy.ResetCounts()

	v, err := shared.NewSharedValue(c, "/closed/value", []byte("seed"))
	zktest.Must(t, err)
	n, err := shared.NewSharedCount(c, "/closed/count", 0)
	zktest.Must(t, err)
	errs := []error{v.Start(ctx), n.Start(ctx), started.Set(ctx, 2)}
	_, err = started.TrySet(ctx, 3, started.VersionedValue().Version)
	errs = append(errs, err)
	for i, err := range errs {
		if !errors.Is(err, framework.ErrClosed) {
			t.Errorf("call %d on a closed client: %v, want framework.ErrClosed", i, err)
		}
		zktest.PrefixOnce(t, "shared: ", "a call on a closed client", err)
	}
	if got := proxy.RequestTotal(); got != 0 {
		t.Errorf("%d requests on a closed client", got)
	}
	for i := range 2 {
		for _, closer := range []interface{ Close() error }{v, n, started} {
			if err := closer.Close(); err != nil {
				t.Errorf("Close %d: %v, want nil", i+1, err)
			}
		}
	}
}

// A started value stops following its node when its client closes: no
// goroutine of it outlives the client's Close.
func TestFollowingEndsWithTheClient(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	before := goleak.IgnoreCurrent()
	c := zkclient.New(t, srv.ConnectString())
	v, err := shared.NewSharedValue(c, "/closed/following", []byte("x"))
	zktest.Must(t, err)
	zktest.Must(t, v.Start(ctx))
	zktest.Must(t, c.Close())
	var left error
	for range 3 { // goleak.Find itself retries for a while
		if left = goleak.Find(before); left == nil {
			break
		}
	}
	if left != nil {
		t.Fatalf("goroutines left after the client's Close: %v", left)
	}
	zktest.Must(t, v.Close())
}
