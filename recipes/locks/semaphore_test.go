package locks_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// leaseChildren lists the lease nodes under a semaphore's path.
func leaseChildren(t *testing.T, c *framework.Client, semPath string) []string {
	t.Helper()
	children, _, err := c.Children(context.Background(), semPath+"/leases")
	zktest.Must(t, err)
	return children
}

// waitLeases waits until a semaphore has n lease nodes, granted or waiting.
func waitLeases(t *testing.T, s *locks.InterProcessSemaphoreV2, n int) []string {
	t.Helper()
	var nodes []string
	zktest.Eventually(t, 10*time.Second, fmt.Sprintf("%d lease nodes", n), func() bool {
		var err error
		nodes, err = s.ParticipantNodes(context.Background())
		return err == nil && len(nodes) == n
	})
	return nodes
}

// gauge tracks how many leases are held at once.
type gauge struct {
	mu       sync.Mutex
	cur, max int
}

func (g *gauge) add(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cur += n
	g.max = max(g.max, g.cur)
}

func (g *gauge) read() (cur, maxSeen int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cur, g.max
}

func TestSemaphoreMaxNeverExceeded(t *testing.T) {
	const maxLeases, goroutines, clients = 10, 100, 4
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	sems := make([]*locks.InterProcessSemaphoreV2, clients)
	for i := range sems {
		sems[i] = built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), "/sem-max", maxLeases))
	}
	var g gauge
	var wg sync.WaitGroup
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			qty := 1 + rand.IntN(3)
			leases, err := sems[i%clients].AcquireN(ctx, qty)
			if err != nil || len(leases) != qty {
				t.Errorf("AcquireN(%d) = %d leases, %v", qty, len(leases), err)
				return
			}
			g.add(qty)
			time.Sleep(30 * time.Millisecond) // hold so that holders pile up to the limit
			g.add(-qty)
			for _, l := range leases {
				if err := l.Close(ctx); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	cur, maxSeen := g.read()
	t.Logf("up to %d of %d leases held at once", maxSeen, maxLeases)
	if cur != 0 || maxSeen > maxLeases || maxSeen < 2 {
		t.Fatalf("held at most %d leases at once (now %d); want 2..%d", maxSeen, cur, maxLeases)
	}
	waitLeases(t, sems[0], 0)
}

// TestSemaphoreReleaseInChunks is Curator's testReleaseInChunks: waiters get
// leases as holders return them in chunks, never more than maxLeases at once.
func TestSemaphoreReleaseInChunks(t *testing.T) {
	const maxLeases, goroutines = 11, 60
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	sem := built(locks.NewInterProcessSemaphoreV2(c, "/sem-chunks", maxLeases))
	var g gauge
	var finished sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(func() { // if the test fails early, stop the holders before the client closes
		cancel()
		finished.Wait()
	})
	var done int
	var doneMu sync.Mutex
	permits := make(chan struct{}, goroutines)
	for i := 0; i < goroutines; i++ {
		finished.Add(1)
		go func() {
			defer finished.Done()
			lease, err := sem.Acquire(ctx)
			if err != nil {
				t.Errorf("Acquire: %v", err)
				return
			}
			g.add(1)
			select {
			case <-permits:
			case <-ctx.Done():
			}
			g.add(-1)
			if err := lease.Close(ctx); err != nil {
				t.Errorf("Close: %v", err)
			}
			doneMu.Lock()
			done++
			doneMu.Unlock()
		}()
	}
	released := 0
	for released < goroutines {
		want := min(maxLeases, goroutines-released)
		zktest.Eventually(t, 15*time.Second, fmt.Sprintf("%d leases held after %d returned", want, released), func() bool {
			doneMu.Lock()
			defer doneMu.Unlock()
			cur, _ := g.read()
			return done == released && cur == want
		})
		chunk := min(1+rand.IntN(5), goroutines-released)
		for i := 0; i < chunk; i++ {
			permits <- struct{}{}
		}
		released += chunk
	}
	finished.Wait()
	cur, maxSeen := g.read()
	if cur != 0 || maxSeen != maxLeases {
		t.Fatalf("at most %d leases held at once (now %d); want exactly %d", maxSeen, cur, maxLeases)
	}
	waitLeases(t, sem, 0)
}

func TestSemaphoreClientCloseFreesLeases(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	holderClient := zkclient.New(t, srv.ConnectString())
	holder := built(locks.NewInterProcessSemaphoreV2(holderClient, "/sem-close", 3))
	waiter := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString()), "/sem-close", 3))
	leases, err := holder.AcquireN(ctx, 3)
	zktest.Must(t, err)
	if len(leases) != 3 {
		t.Fatalf("AcquireN(3) returned %d leases", len(leases))
	}
	if got, err := waiter.TryAcquire(ctx, 1, 0); got != nil || err != nil {
		t.Fatalf("TryAcquire(1, 0) with every lease taken = %v, %v; want nil, nil", got, err)
	}
	type result struct {
		leases []*locks.Lease
		err    error
	}
	got := make(chan result, 1)
	go func() {
		l, err := waiter.AcquireN(ctx, 3)
		got <- result{l, err}
	}()
	waitLeases(t, waiter, 4)
	zktest.Must(t, holderClient.Close())
	select {
	case r := <-got:
		zktest.Must(t, r.err)
		for _, l := range r.leases {
			zktest.Must(t, l.Close(ctx))
		}
	case <-time.After(15 * time.Second):
		t.Fatal("waiter did not get the leases of a closed client")
	}
	waitLeases(t, waiter, 0)
}

// TestSemaphoreLeaseDeletedWhileWaitingIsRetried is Curator's
// testNoOrphanedNodes: a waiting lease node deleted by someone else makes the
// waiter try again with a new node, and nothing is left behind.
func TestSemaphoreLeaseDeletedWhileWaitingIsRetried(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	sem := built(locks.NewInterProcessSemaphoreV2(c, "/sem-orphan", 1))
	first, err := sem.Acquire(ctx)
	zktest.Must(t, err)
	if name := first.NodeName(); !protection.IsProtected(name) || !strings.Contains(name, "-lease-") || first.Path() != "/sem-orphan/leases/"+name {
		t.Fatalf("lease node %s (%s); want /sem-orphan/leases/_c_<uuid>-lease-<sequence>", first.Path(), name)
	}
	if _, err := protection.Sequence(first.NodeName()); err != nil {
		t.Fatal(err)
	}
	type result struct {
		lease *locks.Lease
		err   error
	}
	got := make(chan result, 1)
	go func() {
		l, err := sem.Acquire(ctx)
		got <- result{l, err}
	}()
	nodes := waitLeases(t, sem, 2)
	waiting := nodes[1]
	zktest.Must(t, c.Delete(ctx, waiting))
	// The waiter notices and comes back with a node of its own.
	zktest.Eventually(t, 10*time.Second, "a new waiting lease node", func() bool {
		n, err := sem.ParticipantNodes(ctx)
		return err == nil && len(n) == 2 && n[1] != waiting
	})
	zktest.Must(t, first.Close(ctx))
	var second *locks.Lease
	select {
	case r := <-got:
		zktest.Must(t, r.err)
		second = r.lease
	case <-time.After(15 * time.Second):
		t.Fatal("waiter did not get the lease")
	}
	if children := leaseChildren(t, c, "/sem-orphan"); len(children) != 1 || children[0] != second.NodeName() {
		t.Fatalf("lease nodes %v; want only %s", children, second.NodeName())
	}
	zktest.Must(t, second.Close(ctx))
	zktest.Must(t, second.Close(ctx)) // a second Close does nothing
	if children := leaseChildren(t, c, "/sem-orphan"); len(children) != 0 {
		t.Fatalf("lease nodes %v after every lease was returned", children)
	}
	third, err := sem.TryAcquire(ctx, 1, 5*time.Second)
	if err != nil || len(third) != 1 {
		t.Fatalf("TryAcquire after the retry = %v, %v", third, err)
	}
	zktest.Must(t, third[0].Close(ctx))
}

func TestSemaphoreCancelledAcquireNLeavesNoLease(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	sem := built(locks.NewInterProcessSemaphoreV2(c, "/sem-cancel", 3))
	held, err := sem.Acquire(ctx)
	zktest.Must(t, err)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		leases, err := sem.AcquireN(wctx, 3)
		if leases != nil {
			err = fmt.Errorf("got %d leases along with %v", len(leases), err)
		}
		got <- err
	}()
	waitLeases(t, sem, 4) // ours, two granted, one waiting
	cancel()
	select {
	case err := <-got:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled AcquireN = %v, want context.Canceled", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("cancelled AcquireN did not return")
	}
	nodes, err := sem.ParticipantNodes(ctx)
	zktest.Must(t, err)
	if len(nodes) != 1 || nodes[0] != held.Path() {
		t.Fatalf("after a cancelled AcquireN, lease nodes %v; want only %s", nodes, held.Path())
	}
	waitParticipants(t, built(locks.NewInterProcessMutex(c, "/sem-cancel/locks")), 0)
	// The leases it gave back are free.
	more, err := sem.TryAcquire(ctx, 2, 0)
	if err != nil || len(more) != 2 {
		t.Fatalf("TryAcquire(2, 0) after the cancellation = %v, %v; want 2 leases", more, err)
	}
	for _, l := range append(more, held) {
		zktest.Must(t, l.Close(ctx))
	}
}

func TestSemaphoreTryAcquireTimesOutWithoutNodes(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	sem := built(locks.NewInterProcessSemaphoreV2(c, "/sem-try", 2))
	held, err := sem.AcquireN(ctx, 2)
	zktest.Must(t, err)
	start := time.Now()
	if got, err := sem.TryAcquire(ctx, 1, 200*time.Millisecond); got != nil || err != nil {
		t.Fatalf("TryAcquire(1, 200ms) with every lease taken = %v, %v; want nil, nil", got, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("TryAcquire gave up after %v, before its wait", d)
	}
	waitLeases(t, sem, 2)
	zktest.Must(t, held[0].Close(ctx))
	if got, err := sem.TryAcquire(ctx, 2, 100*time.Millisecond); got != nil || err != nil {
		t.Fatalf("TryAcquire(2, 100ms) with one lease free = %v, %v; want nil, nil", got, err)
	}
	nodes := waitLeases(t, sem, 1)
	if nodes[0] != held[1].Path() {
		t.Fatalf("lease nodes %v; want only %s", nodes, held[1].Path())
	}
	zktest.Must(t, held[1].Close(ctx))
}

func TestSemaphoreSharedCountRiseWakesWaiter(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	newSem := func() *locks.InterProcessSemaphoreV2 {
		return built(locks.NewInterProcessSemaphoreV2(c, "/sem-shared", 1, locks.WithSharedCount("/config/sem-max")))
	}
	a, b := newSem(), newSem()
	first, err := a.Acquire(ctx)
	zktest.Must(t, err)
	data, _, err := c.GetData(ctx, "/config/sem-max")
	zktest.Must(t, err)
	if !bytes.Equal(data, []byte{0, 0, 0, 1}) {
		t.Fatalf("seeded count node holds %v; want Curator's SharedCount encoding of 1, [0 0 0 1]", data)
	}
	got := make(chan error, 1)
	go func() {
		l, err := b.Acquire(ctx)
		if err == nil {
			err = l.Close(ctx)
		}
		got <- err
	}()
	waitLeases(t, a, 2)
	assertPending(t, got, "second Acquire with a count of 1")
	_, err = c.SetData(ctx, "/config/sem-max", binary.BigEndian.AppendUint32(nil, 2), -1)
	zktest.Must(t, err)
	awaitResult(t, got, "second Acquire after the count rose to 2")
	if !slices.Equal(leaseChildren(t, c, "/sem-shared"), []string{first.NodeName()}) {
		t.Fatal("the first lease is not the only one left")
	}
	// A count that does not fit Curator's encoding is reported, naming the node.
	_, err = c.SetData(ctx, "/config/sem-max", []byte("2"), -1)
	zktest.Must(t, err)
	if _, err := b.TryAcquire(ctx, 2, time.Second); err == nil || !strings.Contains(err.Error(), "/config/sem-max") {
		t.Fatalf("TryAcquire with a 1-byte count = %v; want an error naming the count node", err)
	}
	waitLeases(t, a, 1)
	zktest.Must(t, first.Close(ctx))
}

func TestSemaphoreBadInputFailsWithoutTraffic(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	ctx := zktest.TestContext(t)
	proxy.ResetCounts()
	good := built(locks.NewInterProcessSemaphoreV2(c, "/sem-bad", 3))
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"nil client", func() error { _, err := locks.NewInterProcessSemaphoreV2(nil, "/s", 1); return err }, "nil client"},
		{"bad path", func() error { _, err := locks.NewInterProcessSemaphoreV2(c, "s/x", 1); return err }, "s/x"},
		{"maxLeases 0", func() error { _, err := locks.NewInterProcessSemaphoreV2(c, "/s", 0); return err }, "maxLeases 0"},
		{"maxLeases -2", func() error { _, err := locks.NewInterProcessSemaphoreV2(c, "/s", -2); return err }, "maxLeases -2"},
		{"bad count path", func() error {
			_, err := locks.NewInterProcessSemaphoreV2(c, "/s", 1, locks.WithSharedCount("cnt/x"))
			return err
		}, "cnt/x"},
		{"qty 0", func() error { _, err := good.AcquireN(ctx, 0); return err }, "qty 0"},
		{"qty 4 of 3", func() error { _, err := good.AcquireN(ctx, 4); return err }, "qty 4 exceeds maxLeases 3"},
		{"try qty -1", func() error { _, err := good.TryAcquire(ctx, -1, time.Second); return err }, "qty -1"},
		{"negative wait", func() error { _, err := good.TryAcquire(ctx, 1, -time.Second); return err }, "-1s"},
		{"semaphore mutex nil client", func() error { _, err := locks.NewInterProcessSemaphoreMutex(nil, "/s"); return err }, "nil client"},
		{"semaphore mutex bad path", func() error { _, err := locks.NewInterProcessSemaphoreMutex(c, "/s/"); return err }, "/s/"},
	} {
		if err := tc.call(); !errors.Is(err, locks.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error matching ErrInvalidArgument naming %q", tc.name, err, tc.want)
		}
	}
	for _, op := range []zktest.Op{zktest.OpCreate, zktest.OpCreate2, zktest.OpCreateContainer, zktest.OpGetChildren2, zktest.OpGetData} {
		if n := proxy.RequestCount(op); n != 0 {
			t.Errorf("bad input sent %d %v requests", n, op)
		}
	}
}

func TestSemaphoreMutex(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	m := built(locks.NewInterProcessSemaphoreMutex(c, "/sem-mutex"))
	if err := m.Release(ctx); !errors.Is(err, locks.ErrNotOwner) {
		t.Fatalf("Release before Acquire = %v, want ErrNotOwner", err)
	}
	zktest.Must(t, m.Acquire(ctx))
	if !m.IsAcquiredInThisProcess() {
		t.Fatal("IsAcquiredInThisProcess false while held")
	}
	// Not re-entrant: the same handle waits for itself.
	if ok, err := m.TryAcquire(ctx, 100*time.Millisecond); ok || err != nil {
		t.Fatalf("second TryAcquire through the holding handle = %v, %v; want false, nil", ok, err)
	}
	other := built(locks.NewInterProcessSemaphoreMutex(zkclient.New(t, srv.ConnectString()), "/sem-mutex"))
	if ok, err := other.TryAcquire(ctx, 0); ok || err != nil {
		t.Fatalf("another handle's TryAcquire(0) while held = %v, %v; want false, nil", ok, err)
	}
	// A different tree: an InterProcessMutex on the same path is not excluded.
	mutex := built(locks.NewInterProcessMutex(c, "/sem-mutex"))
	if ok, err := mutex.TryAcquire(ctx, 0); !ok || err != nil {
		t.Fatalf("InterProcessMutex on the same path: TryAcquire(0) = %v, %v; want true (as in Curator)", ok, err)
	}
	zktest.Must(t, mutex.Release(ctx))

	// A waiter through the same handle gets the lock once another goroutine releases it.
	got := make(chan error, 1)
	go func() { got <- m.Acquire(ctx) }()
	sem := built(locks.NewInterProcessSemaphoreV2(c, "/sem-mutex", 1))
	waitLeases(t, sem, 2)
	released := make(chan error, 1)
	go func() { released <- m.Release(ctx) }()
	awaitResult(t, released, "Release from another goroutine")
	awaitResult(t, got, "second Acquire after the release")
	if !m.IsAcquiredInThisProcess() {
		t.Fatal("IsAcquiredInThisProcess false after the second Acquire")
	}
	zktest.Must(t, m.Release(ctx))
	if err := m.Release(ctx); !errors.Is(err, locks.ErrNotOwner) {
		t.Fatalf("Release after Release = %v, want ErrNotOwner", err)
	}
	if ok, err := other.TryAcquire(ctx, 0); !ok || err != nil {
		t.Fatalf("another handle's TryAcquire(0) once free = %v, %v; want true", ok, err)
	}
	zktest.Must(t, other.Release(ctx))
	waitLeases(t, sem, 0)
}
