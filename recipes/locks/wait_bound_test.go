package locks_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A wait is the bound of a timed acquisition: while the client has no
// connection no request of the call is in flight, so the call returns at
// its wait, and its clean-up goes on in the background.

// waitBoundSlack is how late past its wait a timed acquisition of a client
// without a connection may return. The call does no work past its deadline
// but wake up and return (its clean-up is left to the background), so what
// is left is the scheduling of a few goroutines and a timer: a few
// milliseconds, some tens under -race on a shared two-core machine. 150 ms
// is several times that, and far below the second by which the wait once
// overran.
const waitBoundSlack = 150 * time.Millisecond

// durationPattern finds the durations that an error's message states.
var durationPattern = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m|h)\b`)

// assertWaitBound fails the test unless a timed acquisition of a client
// without a connection returned within its wait and waitBoundSlack, with
// an error that matches context.DeadlineExceeded and framework.ErrNotConnected,
// states one duration, the wait, and fits on one line.
func assertWaitBound(t *testing.T, r timedResult, wait time.Duration) {
	t.Helper()
	if r.took > wait+waitBoundSlack {
		t.Errorf("%s: TryAcquire(%v) took %v; want at most %v", r.name, wait, r.took, wait+waitBoundSlack)
	}
	if r.ok || r.err == nil {
		t.Errorf("%s: TryAcquire(%v) = %v, %v; want false and an error", r.name, wait, r.ok, r.err)
		return
	}
	msg := r.err.Error()
	if !errors.Is(r.err, context.DeadlineExceeded) || !errors.Is(r.err, framework.ErrNotConnected) {
		t.Errorf("%s: TryAcquire(%v) error %q; want it to match context.DeadlineExceeded and framework.ErrNotConnected", r.name, wait, msg)
	}
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("%s: TryAcquire(%v) error spans lines: %q", r.name, wait, msg)
	}
	if !strings.Contains(msg, "waiting for a connection") {
		t.Errorf("%s: TryAcquire(%v) error %q; want it to say it waited for a connection", r.name, wait, msg)
	}
	durations := durationPattern.FindAllString(msg, -1)
	if len(durations) != 1 || durations[0] != wait.String() {
		t.Errorf("%s: TryAcquire(%v) error %q states durations %v; want the wait, once", r.name, wait, msg, durations)
	}
}

// runWaitBound runs every timed acquisition on c with each wait, all at
// once for one wait, and checks each with assertWaitBound.
func runWaitBound(t *testing.T, c *framework.Client, base string) {
	for i, wait := range []time.Duration{0, 500 * time.Millisecond, 2 * time.Second} {
		// No duration in the paths: the errors name them.
		acquisitions := timedAcquisitions(c, fmt.Sprintf("%s/w%d", base, i))
		got := make(chan timedResult, len(acquisitions))
		for name, try := range acquisitions {
			go func() {
				start := time.Now()
				ok, err := try(context.Background(), wait)
				got <- timedResult{name, ok, err, time.Since(start)}
			}()
		}
		for range acquisitions {
			select {
			case r := <-got:
				t.Logf("%s: TryAcquire(%v) = %v, %v after %v", r.name, wait, r.ok, r.err, r.took)
				assertPrefixOnce(t, r.err)
				assertWaitBound(t, r, wait)
			case <-time.After(wait + time.Minute):
				t.Fatalf("a TryAcquire(%v) still runs after a minute more", wait)
			}
		}
	}
}

// A client whose server was never started: every timed acquisition
// returns at its wait.
func TestTimedAcquireOfANeverConnectedClientReturnsAtItsWait(t *testing.T) {
	c := zkclient.Unreachable(t, retry.ExponentialBackoff{BaseSleep: time.Second, MaxRetries: 3})
	runWaitBound(t, c, "/wait-bound/never")
}

// A client cut off by a paused Proxy, once it knows it has no connection:
// every timed acquisition returns at its wait, and leaves no node behind
// once the link is back.
func TestTimedAcquireOfACutOffClientReturnsAtItsWait(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	// A session long enough to outlast the test's waits, so that the
	// client's clean-up after the pause runs in the same session.
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(20*time.Second))
	ctx := zktest.TestContext(t)
	zktest.Must(t, c.CreateContainers(ctx, "/wait-bound/cut"))
	p.Pause()
	zktest.Eventually(t, 20*time.Second, "the client noticing it has no connection", func() bool {
		return !c.State().IsConnected()
	})
	runWaitBound(t, c, "/wait-bound/cut")
	p.Resume()
	zktest.Must(t, c.BlockUntilConnected(ctx))
	admin := zkclient.New(t, srv.ConnectString())
	zktest.Eventually(t, 20*time.Second, "no lock or lease node left", func() bool {
		return countNodes(ctx, admin, "/wait-bound/cut") == 0
	})
}

// countNodes counts the ephemeral nodes under p, at any depth.
func countNodes(ctx context.Context, c *framework.Client, p string) int {
	children, _, err := c.Children(ctx, p)
	if err != nil {
		return 0
	}
	n := 0
	for _, name := range children {
		child := framework.JoinPath(p, name)
		if stat, err := c.Exists(ctx, child); err == nil && stat != nil && stat.EphemeralOwner != 0 {
			n++
		}
		n += countNodes(ctx, c, child)
	}
	return n
}
