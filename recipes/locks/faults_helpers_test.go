package locks_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Helpers of the fault tests (faults_*_test.go): awaiting nodes and results
// through a client of the test's own, and shared set-ups.

// restartSession outlasts go-zookeeper's one-second pause before it redials a
// lone server, with room for a loaded machine, where the redial has been seen
// to come four seconds after the restarted server served; tests that restart
// the server take at least this, and more when the server's measured start
// says so (Server.SessionOutlastingRestart).
const restartSession = 12 * time.Second

// createOps are the opcodes a lock node's create may use.
var createOps = []zktest.Op{zktest.OpCreate, zktest.OpCreate2, zktest.OpCreateContainer}

// leaseResult is the outcome of an acquisition run on a goroutine.
type leaseResult struct {
	lease *locks.Lease
	err   error
}

// childNames returns the sorted children of p; an absent p has none.
func childNames(ctx context.Context, c *framework.Client, p string) ([]string, error) {
	children, _, err := c.Children(ctx, p)
	if errors.Is(err, zk.ErrNoNode) {
		return []string{}, nil
	}
	slices.Sort(children)
	return children, err
}

// awaitChildren waits until the children of p are exactly want (node names,
// in any order), failing with the last listing if they never are.
func awaitChildren(t *testing.T, c *framework.Client, p string, want ...string) {
	t.Helper()
	want = slices.Clone(want)
	slices.Sort(want)
	var got []string
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err = childNames(context.Background(), c, p)
		if err == nil && slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children of %s: %v (err %v); want exactly %v", p, got, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitCount waits until p has n children and returns them oldest first (in
// the order of their sequence numbers).
func awaitCount(t *testing.T, c *framework.Client, p string, n int) []string {
	t.Helper()
	var got []string
	zktest.Eventually(t, 10*time.Second, fmt.Sprintf("%d children of %s", n, p), func() bool {
		var err error
		got, err = childNames(context.Background(), c, p)
		return err == nil && len(got) == n
	})
	seq := func(name string) int64 {
		n, err := protection.Sequence(name)
		if err != nil {
			t.Fatalf("child %s of %s: %v", name, p, err)
		}
		return n
	}
	slices.SortFunc(got, func(a, b string) int { return cmp.Compare(seq(a), seq(b)) })
	return got
}

// awaitGone waits until the node at p no longer exists.
func awaitGone(t *testing.T, c *framework.Client, p string) {
	t.Helper()
	zktest.Eventually(t, 10*time.Second, p+" deleted", func() bool {
		stat, err := c.Exists(context.Background(), p)
		return err == nil && stat == nil
	})
}

// onDisconnect calls fn once, when c first reports a state other than
// connected: where a holder without a Lost channel must stop acting as one.
func onDisconnect(t *testing.T, c *framework.Client, fn func()) {
	var once sync.Once
	stop := c.Listen(func(s framework.ConnectionState) {
		if !s.IsConnected() {
			once.Do(fn)
		}
	})
	t.Cleanup(stop)
}

// acquireEntering runs l.Acquire on a goroutine. Once it holds, it enters a
// locktest.Checker with enter and sends the matching leave on exits, before
// it sends Acquire's result on got.
func acquireEntering(ctx context.Context, l locks.Lock, enter func() func()) (got <-chan error, exits <-chan func()) {
	result, leave := make(chan error, 1), make(chan func(), 1)
	go func() {
		err := l.Acquire(ctx)
		if err == nil {
			leave <- enter()
		}
		result <- err
	}()
	return result, leave
}

// acquireLease runs sem.Acquire on a goroutine; the gauge counts the lease
// from the moment it is granted.
func acquireLease(ctx context.Context, sem *locks.InterProcessSemaphoreV2, g *gauge) <-chan leaseResult {
	got := make(chan leaseResult, 1)
	go func() {
		l, err := sem.Acquire(ctx)
		if err == nil {
			g.add(1)
		}
		got <- leaseResult{l, err}
	}()
	return got
}

// assertMaxLeases fails the test if the gauge ever saw more than n leases.
func assertMaxLeases(t *testing.T, g *gauge, n int) {
	t.Helper()
	if _, maxSeen := g.read(); maxSeen > n {
		t.Fatalf("%d leases held at once; the limit is %d", maxSeen, n)
	}
}

// proxiedPair returns a read/write lock pair on lockPath whose client talks
// through a proxy, an admin client and a foreign writer, on a server of
// their own.
func proxiedPair(t *testing.T, lockPath string) (*zktest.Proxy, *framework.Client, *framework.Client, *locks.InterProcessReadWriteLock, *locks.InterProcessMutex) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	pairClient := zkclient.New(t, p.Addr())
	admin := zkclient.New(t, srv.ConnectString())
	pair := built(locks.NewInterProcessReadWriteLock(pairClient, lockPath))
	foreign := built(locks.NewInterProcessReadWriteLock(zkclient.New(t, srv.ConnectString()), lockPath)).WriteLock()
	return p, pairClient, admin, pair, foreign
}
