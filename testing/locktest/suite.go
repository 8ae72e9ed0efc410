package locktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// RunDriverSuite runs the checks every LockInternalsDriver must pass against
// the ZooKeeper at connect: mutual exclusion under contention from several
// sessions, hand-over, reentrancy, strictly increasing fencing tokens, a Lost
// channel that closes on release, cancelled or timed-out waiters that leave
// no node behind, also when many give up while others hold, and a release
// that never removes a node its own acquisition did not make (a stale hold's
// release leaves the next holder's hold intact). newDriver returns the driver
// for each mutex.
func RunDriverSuite(t *testing.T, connect string, newDriver func() locks.LockInternalsDriver) {
	RunDriverSuiteWith(t, connect, nil, newDriver)
}

// RunDriverSuiteWith is RunDriverSuite with clientOpts given to every client
// it makes (WithTLS, WithAuth, WithACLProvider...), so that the suite also
// runs over TLS and with ACLs.
func RunDriverSuiteWith(t *testing.T, connect string, clientOpts []framework.Option, newDriver func() locks.LockInternalsDriver) {
	newClient := func(t *testing.T) *framework.Client { return zkclient.New(t, connect, clientOpts...) }
	opt := func() locks.MutexOption { return locks.WithDriver(newDriver()) }
	var seq int
	var seqMu sync.Mutex
	lockPath := func() string {
		seqMu.Lock()
		defer seqMu.Unlock()
		seq++
		return fmt.Sprintf("/locktest/%s/%d", t.Name(), seq)
	}

	t.Run("Exclusion", func(t *testing.T) {
		const clients, handlesPerClient, rounds = 3, 2, 10
		path := lockPath()
		var mutexes []*locks.InterProcessMutex
		for i := 0; i < clients; i++ {
			c := newClient(t)
			for j := 0; j < handlesPerClient; j++ {
				mutexes = append(mutexes, newMutex(t, c, path, opt()))
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var check Checker
		if err := Contend(ctx, mutexes, rounds, time.Millisecond, &check); err != nil {
			t.Fatal(err)
		}
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
		if got, want := check.Entries(), clients*handlesPerClient*rounds; got != want {
			t.Fatalf("entries = %d, want %d", got, want)
		}
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("HandOver", func(t *testing.T) {
		path := lockPath()
		ctx := zktest.Context(t, suiteWait)
		a := newMutex(t, newClient(t), path, opt())
		b := newMutex(t, newClient(t), path, opt())
		zktest.Must(t, a.Acquire(ctx))
		got := make(chan error, 1)
		go func() { got <- b.Acquire(ctx) }()
		waitContenders(t, a, 2)
		select {
		case err := <-got:
			t.Fatalf("second session acquired while the first held (err %v)", err)
		default:
		}
		zktest.Must(t, a.Release(ctx))
		zktest.Must(t, <-got)
		if !b.IsAcquiredInThisProcess() || a.IsAcquiredInThisProcess() {
			t.Fatalf("after hand-over: a held %v, b held %v", a.IsAcquiredInThisProcess(), b.IsAcquiredInThisProcess())
		}
		zktest.Must(t, b.Release(ctx))
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("Reentrancy", func(t *testing.T) {
		path := lockPath()
		ctx := zktest.Context(t, suiteWait)
		c := newClient(t)
		m := newMutex(t, c, path, opt())
		other := newMutex(t, c, path, opt())
		for i := 0; i < 3; i++ {
			zktest.Must(t, m.Acquire(ctx))
		}
		nodes, err := m.ParticipantNodes(ctx)
		zktest.Must(t, err)
		if len(nodes) != 1 || nodes[0] != m.LockPath() {
			t.Fatalf("3-deep hold: participants %v, our node %q", nodes, m.LockPath())
		}
		if ok, err := other.TryAcquire(ctx, 100*time.Millisecond); ok || err != nil {
			t.Fatalf("another handle's TryAcquire during a reentrant hold = %v, %v; want false, nil", ok, err)
		}
		for i := 0; i < 2; i++ {
			zktest.Must(t, m.Release(ctx))
			if !m.IsAcquiredInThisProcess() {
				t.Fatalf("released after %d of 3 releases", i+1)
			}
		}
		zktest.Must(t, m.Release(ctx))
		if err := m.Release(ctx); !errors.Is(err, locks.ErrNotOwner) {
			t.Fatalf("fourth Release = %v, want ErrNotOwner", err)
		}
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("CancelledWaiterLeavesNoNode", func(t *testing.T) {
		path := lockPath()
		ctx := zktest.Context(t, suiteWait)
		holder := newMutex(t, newClient(t), path, opt())
		waiter := newMutex(t, newClient(t), path, opt())
		zktest.Must(t, holder.Acquire(ctx))
		wctx, cancel := context.WithCancel(ctx)
		got := make(chan error, 1)
		go func() { got <- waiter.Acquire(wctx) }()
		waitContenders(t, holder, 2)
		cancel()
		if err := <-got; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Acquire = %v, want context.Canceled", err)
		}
		waitContenders(t, holder, 1)
		zktest.Must(t, holder.Release(ctx))
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("TryAcquireTimesOutWithoutNode", func(t *testing.T) {
		path := lockPath()
		ctx := zktest.Context(t, suiteWait)
		holder := newMutex(t, newClient(t), path, opt())
		waiter := newMutex(t, newClient(t), path, opt())
		zktest.Must(t, holder.Acquire(ctx))
		ok, err := waiter.TryAcquire(ctx, 150*time.Millisecond)
		if ok || err != nil {
			t.Fatalf("TryAcquire while held = %v, %v; want false, nil", ok, err)
		}
		if ok, err := waiter.TryAcquire(ctx, 0); ok || err != nil {
			t.Fatalf("TryAcquire(0) while held = %v, %v; want false, nil", ok, err)
		}
		waitContenders(t, holder, 1)
		zktest.Must(t, holder.Release(ctx))
		if ok, err := waiter.TryAcquire(ctx, 0); !ok || err != nil {
			t.Fatalf("TryAcquire(0) when free = %v, %v; want true, nil", ok, err)
		}
		zktest.Must(t, waiter.Release(ctx))
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("CancelledBeforeStartLeavesNoNode", func(t *testing.T) {
		path := lockPath()
		m := newMutex(t, newClient(t), path, opt())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := m.Acquire(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire with a cancelled context = %v, want context.Canceled", err)
		}
		if m.IsAcquiredInThisProcess() {
			t.Fatal("held after a cancelled Acquire")
		}
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("FencingTokensIncrease", func(t *testing.T) {
		const rounds = 3
		path := lockPath()
		ctx := zktest.Context(t, suiteWait)
		handles := []*locks.InterProcessMutex{
			newMutex(t, newClient(t), path, opt()),
			newMutex(t, newClient(t), path, opt()),
		}
		var last int64
		for r := 0; r < rounds; r++ {
			for i, m := range handles {
				zktest.Must(t, m.Acquire(ctx))
				token := m.FencingToken()
				if token <= last {
					t.Fatalf("round %d, handle %d: fencing token %d after %d; want a larger one", r, i, token, last)
				}
				if again := m.FencingToken(); again != token {
					t.Fatalf("fencing token changed during one hold: %d then %d", token, again)
				}
				last = token
				zktest.Must(t, m.Release(ctx))
				if got := m.FencingToken(); got != 0 {
					t.Fatalf("fencing token after release = %d, want 0", got)
				}
			}
		}
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("LostClosesOnRelease", func(t *testing.T) {
		path := lockPath()
		ctx := zktest.Context(t, suiteWait)
		m := newMutex(t, newClient(t), path, opt())
		zktest.Must(t, m.Acquire(ctx))
		lost := m.Lost()
		select {
		case <-lost:
			t.Fatal("Lost closed while the lock is held on a healthy connection")
		default:
		}
		zktest.Must(t, m.Release(ctx))
		select {
		case <-lost:
		case <-time.After(5 * time.Second):
			t.Fatal("the hold's Lost channel stayed open after Release")
		}
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("StaleReleaseLeavesTheNextHoldAlone", func(t *testing.T) {
		path := lockPath()
		ctx := zktest.Context(t, suiteWait)
		c := newClient(t)
		stale := newMutex(t, c, path, opt())
		next := newMutex(t, c, path, opt()) // same client, same session
		zktest.Must(t, stale.Acquire(ctx))
		// Someone removes the holder's nodes; its hold is stale, and the
		// next contender takes the lock.
		admin := newClient(t)
		children, _, err := admin.Children(ctx, path)
		zktest.Must(t, err)
		for _, child := range children {
			zktest.Must(t, admin.Delete(ctx, path+"/"+child, framework.Quietly()))
		}
		zktest.Must(t, next.Acquire(ctx))
		_ = stale.Release(ctx) // it may report the loss; it must touch nothing of next's

		other := newMutex(t, newClient(t), path, opt())
		if ok, err := other.TryAcquire(ctx, 300*time.Millisecond); ok || err != nil {
			t.Fatalf("another client's TryAcquire after the stale holder's release = %v, %v; want false, nil: the next holder still holds", ok, err)
		}
		select {
		case <-next.Lost():
			t.Fatal("the stale holder's release closed the next holder's Lost")
		default:
		}
		if stat, err := admin.Exists(ctx, next.LockPath()); err != nil || stat == nil {
			t.Fatalf("Exists(%s), the next holder's node, after the stale release = %v, %v", next.LockPath(), stat, err)
		}
		zktest.Must(t, next.Release(ctx))
		assertNoContenders(t, newClient, path, opt)
	})

	t.Run("TimeoutsUnderContention", func(t *testing.T) {
		const clients, handlesPerClient, rounds = 2, 2, 8
		path := lockPath()
		var check Checker
		var wg sync.WaitGroup
		errs := make(chan error, clients*handlesPerClient)
		for i := 0; i < clients; i++ {
			c := newClient(t)
			for j := 0; j < handlesPerClient; j++ {
				m := newMutex(t, c, path, opt())
				wait := time.Duration(i*handlesPerClient+j) * 5 * time.Millisecond // 0 to 15 ms
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					for r := 0; r < rounds; r++ {
						ok, err := m.TryAcquire(ctx, wait)
						if err != nil {
							errs <- err
							return
						}
						if !ok {
							continue
						}
						exit := check.Enter()
						time.Sleep(3 * time.Millisecond) // hold long enough for others to give up
						exit()
						if err := m.Release(ctx); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("contender failed: %v", err)
		}
		if v := check.Violations(); v != 0 {
			t.Fatalf("%d overlapping holds", v)
		}
		if check.Entries() == 0 {
			t.Fatal("no TryAcquire succeeded")
		}
		assertNoContenders(t, newClient, path, opt)
	})
}

// suiteWait bounds each of the suite's calls.
const suiteWait = 30 * time.Second

// waitContenders waits until the lock of m has n contenders.
func waitContenders(t *testing.T, m *locks.InterProcessMutex, n int) {
	t.Helper()
	zktest.Eventually(t, 10*time.Second, fmt.Sprintf("%d contenders", n), func() bool {
		nodes, err := m.ParticipantNodes(context.Background())
		return err == nil && len(nodes) == n
	})
}

// assertNoContenders checks, through a fresh session, that no node of any
// contender is left under path.
func assertNoContenders(t *testing.T, newClient func(*testing.T) *framework.Client, path string, opt func() locks.MutexOption) {
	t.Helper()
	waitContenders(t, newMutex(t, newClient(t), path, opt()), 0)
}

// newMutex returns a mutex of c on path, and fails the test when the
// constructor refuses it.
func newMutex(t *testing.T, c *framework.Client, path string, opt locks.MutexOption) *locks.InterProcessMutex {
	t.Helper()
	m, err := locks.NewInterProcessMutex(c, path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
