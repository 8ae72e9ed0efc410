package locks_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Revocation: once per hold, the callback registered when the request comes,
// one watch and no polling, and nothing left once the hold or its client ends.

// revocationWatcher is the goroutine of a hold's revocation watcher.
const revocationWatcher = "(*hold).watchRevocation"

// awaitNoRevocationWatcher waits until no revocation watcher runs: it has
// seen the request and called its callback, or it has stopped.
func awaitNoRevocationWatcher(t *testing.T, why string) {
	t.Helper()
	zktest.Eventually(t, 10*time.Second, why, func() bool { return !goroutinesRunning(revocationWatcher) })
}

// A callback replaced during a hold is never called, and neither is one
// removed with nil: the revocation calls the callback registered when it
// comes, once.
func TestRevocationCallsOnlyTheCurrentCallback(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	admin := zkclient.New(t, srv.ConnectString())
	m := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/revoke/current"))
	var first, second atomic.Int32
	secondCalled := make(chan struct{}, 1)

	t.Run("replaced", func(t *testing.T) {
		m.MakeRevocable(func() { first.Add(1) })
		zktest.Must(t, m.Acquire(ctx))
		m.MakeRevocable(func() { second.Add(1); secondCalled <- struct{}{} })
		zktest.Must(t, locks.AttemptRevoke(ctx, admin, m.LockPath()))
		receive(t, secondCalled, "the current callback")
		awaitNoRevocationWatcher(t, "the revocation handled")
		zktest.Must(t, m.Release(ctx))
		if n := first.Load(); n != 0 {
			t.Fatalf("the replaced callback ran %d times", n)
		}
		if n := second.Load(); n != 1 {
			t.Fatalf("the current callback ran %d times; want once", n)
		}
	})

	t.Run("removed", func(t *testing.T) {
		var removed atomic.Int32
		m.MakeRevocable(func() { removed.Add(1) })
		zktest.Must(t, m.Acquire(ctx))
		m.MakeRevocable(nil)
		zktest.Must(t, locks.AttemptRevoke(ctx, admin, m.LockPath()))
		awaitNoRevocationWatcher(t, "the revocation handled")
		zktest.Must(t, m.Release(ctx))
		if n := removed.Load(); n != 0 {
			t.Fatalf("the removed callback ran %d times", n)
		}
	})
}

// A revocable hold whose client closes without Release stops watching.
func TestRevocationWatcherEndsWithItsClient(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	m := built(locks.NewInterProcessMutex(c, "/revoke/closed"))
	m.MakeRevocable(func() { t.Error("revocation callback called without a request") })
	zktest.Must(t, m.Acquire(ctx))
	node := m.LockPath()
	zktest.Eventually(t, 10*time.Second, "the revocation watch set", func() bool {
		return perfWatchesByPath(t, srv)[node] == 1
	})
	zktest.Must(t, c.Close())
	awaitNoRevocationWatcher(t, "the revocation watcher ended with its client")
}

// An idle revocable hold keeps one watch on its node and sends no request
// while that watch is set.
func TestIdleRevocableHoldSendsNoRequests(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	m := built(locks.NewInterProcessMutex(zkclient.New(t, p.Addr()), "/revoke/idle"))
	m.MakeRevocable(func() {})
	zktest.Must(t, m.Acquire(ctx))
	node := m.LockPath()
	zktest.Eventually(t, 10*time.Second, "the revocation watch set", func() bool {
		return perfWatchesByPath(t, srv)[node] == 1
	})
	p.ResetCounts()
	// An observation window of one and a half session timeouts (2 s), in
	// which a poller would send several reads.
	time.Sleep(3 * time.Second)
	if n := p.RequestCount(zktest.OpGetData); n != 0 {
		t.Fatalf("an idle revocable hold sent %d getData requests in 3s", n)
	}
	if w := perfWatchesByPath(t, srv)[node]; w != 1 {
		t.Fatalf("%d watches on the held node; want 1", w)
	}
	zktest.Must(t, m.Release(context.Background()))
	awaitNoRevocationWatcher(t, "the revocation watcher ended with its hold")
}

// AttemptRevoke writes only to a contender's node: anything else is refused
// with an error matching ErrNotContender that names the path, and keeps its
// data. Ephemeral contender nodes of every recipe, the unfair driver's and
// the PersistentTTL driver's TTL nodes are revoked.
func TestAttemptRevokeRefusesWhatIsNotAContender(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes())
	ctx := zktest.TestContext(t)
	admin := zkclient.New(t, srv.ConnectString())
	const base = "/revoke/refuse"
	held := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), base+"/lock"))
	held.MakeRevocable(func() { t.Error("a refused revocation reached the holder") })
	zktest.Must(t, held.Acquire(ctx))
	contenderName := protection.Name(protection.NewID(), "lease-0000000001")
	mk := func(p string, mode framework.CreateMode) string {
		t.Helper()
		_, err := admin.Create(ctx, p, []byte("kept"), framework.WithMode(mode), framework.CreatingParentsIfNeeded())
		zktest.Must(t, err)
		return p
	}
	refused := []string{
		"/",
		base + "/lock", // the lock path itself
		mk(base+"/persistent/"+contenderName, framework.Persistent),
		mk(base+"/lock/0123abcd__lock__0000000007", framework.Ephemeral),                   // Kazoo's
		mk(base+"/lock/"+locks.UnfairHolderNodeName, framework.Ephemeral),                  // the unfair holder node
		mk(base+"/lock/"+protection.Name(protection.NewID(), "note"), framework.Ephemeral), // protected, no lock name
	}
	folder := base + "/folder/" + protection.Name(protection.NewID(), "lock-0000000001")
	mk(folder+"/child", framework.Ephemeral)
	refused = append(refused, folder) // named as a TTL contender, with a child
	for _, p := range refused {
		before, _, _ := admin.GetData(ctx, p)
		err := locks.AttemptRevoke(ctx, admin, p)
		if !errors.Is(err, locks.ErrNotContender) || !strings.Contains(err.Error(), p) {
			t.Errorf("AttemptRevoke(%s) = %v; want an error matching ErrNotContender naming the path", p, err)
		}
		if after, _, _ := admin.GetData(ctx, p); !bytes.Equal(before, after) {
			t.Errorf("AttemptRevoke(%s) changed its data from %q to %q", p, before, after)
		}
	}
	zktest.Must(t, held.Release(ctx))

	ttl, err := locks.NewPersistentTTLLockInternalsDriver(time.Minute)
	zktest.Must(t, err)
	for name, opts := range map[string][]locks.MutexOption{
		"standard": nil,
		"unfair":   {locks.WithDriver(locks.UnfairLockInternalsDriver{})},
		"TTL":      {locks.WithDriver(ttl)},
	} {
		m := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), base+"/"+name, opts...))
		revoked := make(chan struct{}, 1)
		m.MakeRevocable(func() { revoked <- struct{}{} })
		zktest.Must(t, m.Acquire(ctx))
		holder, err := locks.MutexHolder(ctx, admin, base+"/"+name)
		zktest.Must(t, err)
		if holder != m.LockPath() {
			t.Errorf("%s: MutexHolder = %q; want the holder's node %q", name, holder, m.LockPath())
		}
		zktest.Must(t, locks.AttemptRevoke(ctx, admin, holder))
		receive(t, revoked, name+" holder's revocation")
		zktest.Must(t, m.Release(ctx))
		if holder, err := locks.MutexHolder(ctx, admin, base+"/"+name); holder != "" || err != nil {
			t.Errorf("%s: MutexHolder once released = %q, %v; want none", name, holder, err)
		}
	}
}
