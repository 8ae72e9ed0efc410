package locks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A waiter holds on its predecessor's release signal only: when the
// predecessor ends without holding (its attempt cancelled, its node deleted by
// someone else as Curator in Java or an operator would, its session expired),
// the waiter lists the children again and goes on waiting for the holder. The
// signal watch that never fired is fired by the waiter's own release, so no
// watch is left on the server.
func TestMutexWaiterHoldsOnlyOnAReleaseSignal(t *testing.T) {
	srv := zktest.StartServer(t)
	cases := []struct {
		name string
		// end ends the middle contender's attempt without a hold: cancel
		// cancels its Acquire, node is its lock node, proxy carries its
		// session.
		end func(t *testing.T, cancel context.CancelFunc, node string, proxy *zktest.Proxy)
	}{
		{"cancelled", func(t *testing.T, cancel context.CancelFunc, _ string, _ *zktest.Proxy) { cancel() }},
		{"deleted", func(t *testing.T, _ context.CancelFunc, node string, _ *zktest.Proxy) {
			zktest.Must(t, zkclient.New(t, srv.ConnectString()).Delete(zktest.TestContext(t), node))
		}},
		{"expired", func(t *testing.T, _ context.CancelFunc, _ string, proxy *zktest.Proxy) { proxy.Pause() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := zktest.TestContext(t)
			path := "/signal-" + tc.name
			holder := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), path))
			zktest.Must(t, holder.Acquire(ctx))

			middleProxy := zktest.StartProxy(t, srv.ConnectString())
			middleClient := zkclient.New(t, middleProxy.Addr(), framework.WithSessionTimeout(shortSession))
			middle := built(locks.NewInterProcessMutex(middleClient, path))
			middleCtx, cancelMiddle := context.WithCancel(ctx)
			defer cancelMiddle()
			middleDone := make(chan error, 1)
			go func() { middleDone <- middle.Acquire(middleCtx) }()
			middleNode := waitParticipants(t, holder, 2)[1]

			waiterProxy := zktest.StartProxy(t, srv.ConnectString())
			waiter := built(locks.NewInterProcessMutex(zkclient.New(t, waiterProxy.Addr()), path))
			waiterProxy.ResetCounts() // only the lock's requests
			acquired := make(chan error, 1)
			go func() { acquired <- waiter.Acquire(ctx) }()
			waitParticipants(t, holder, 3)
			// It watches its own node (getData), the middle node (getData)
			// and the middle node's release signal (exists).
			zktest.Eventually(t, 10*time.Second, "the waiter watching the middle node and its signal", func() bool {
				return waiterProxy.RequestCount(zktest.OpGetData) == 2 && waiterProxy.RequestCount(zktest.OpExists) == 1
			})

			tc.end(t, cancelMiddle, middleNode, middleProxy)
			// The waiter lists again and watches the holder's node.
			zktest.Eventually(t, 30*time.Second, "the waiter watching the holder", func() bool {
				return waiterProxy.RequestCount(zktest.OpGetData) == 3
			})
			if n := waiterProxy.RequestCount(zktest.OpGetChildren2); n != 2 {
				t.Errorf("the waiter listed the children %d times; want 2", n)
			}
			select {
			case err := <-acquired:
				t.Fatalf("the waiter's Acquire returned (%v) while the holder held the lock", err)
			default:
			}

			zktest.Must(t, holder.Release(ctx))
			select {
			case err := <-acquired:
				zktest.Must(t, err)
			case <-time.After(10 * time.Second):
				t.Fatal("the waiter did not acquire within 10s of the release")
			}
			zktest.Must(t, waiter.Release(ctx))
			middleProxy.Resume()
			switch err := <-middleDone; {
			case tc.name == "cancelled" && err == nil:
				t.Error("the cancelled Acquire returned no error")
			case err == nil:
				// A middle contender whose node went away tries again with a
				// new node and gets the lock once everyone has gone.
				zktest.Must(t, middle.Release(ctx))
			}
			zktest.Eventually(t, 10*time.Second, "no contender and no watch left", func() bool {
				nodes, err := holder.ParticipantNodes(ctx)
				return err == nil && len(nodes) == 0 && perfWatches(t, srv) == 0
			})
		})
	}
}

// A waiter holds on an event only while its own node exists: when another
// process deletes the node of a waiting contender, the contender sees it at
// once and queues again with a new node, before anyone releases. Otherwise
// the release it waited for would hand it the lock with no node at all,
// beside a newcomer that finds itself the lowest. Both kinds of event-based
// hold are covered: behind the lowest node and behind a release signal.
func TestMutexWaiterWhoseNodeIsDeletedQueuesAgain(t *testing.T) {
	srv := zktest.StartServer(t)
	for _, ahead := range []int{1, 2} {
		t.Run(fmt.Sprintf("ahead=%d", ahead), func(t *testing.T) {
			ctx := zktest.TestContext(t)
			path := fmt.Sprintf("/deleted-waiter-%d", ahead)
			direct := zkclient.New(t, srv.ConnectString())
			holder := built(locks.NewInterProcessMutex(direct, path))
			zktest.Must(t, holder.Acquire(ctx))
			var queued []*locks.InterProcessMutex
			done := make(chan error, ahead)
			for i := 1; i < ahead; i++ {
				m := built(locks.NewInterProcessMutex(direct, path))
				queued = append(queued, m)
				go func() { done <- m.Acquire(ctx) }()
				waitParticipants(t, holder, i+1)
			}
			waiter := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), path))
			go func() { done <- waiter.Acquire(ctx) }()
			old := waitParticipants(t, holder, ahead+1)[ahead]
			zktest.Eventually(t, 10*time.Second, "every waiter watching", func() bool {
				// Each waiter watches its predecessor and its own node; all
				// but the first also watch a release signal. (A deletion
				// before the last of them is armed is noticed all the same.)
				return perfWatches(t, srv) >= 2*ahead-1
			})

			zktest.Must(t, direct.Delete(ctx, old))
			var requeued string
			zktest.Eventually(t, 20*time.Second, "the waiter queueing again with a new node", func() bool {
				nodes, err := holder.ParticipantNodes(ctx)
				if err != nil || len(nodes) != ahead+1 || nodes[ahead] == old {
					return false
				}
				requeued = nodes[ahead]
				return true
			})

			zktest.Must(t, holder.Release(ctx))
			for _, m := range queued {
				zktest.Must(t, <-done)
				zktest.Must(t, m.Release(ctx))
			}
			zktest.Must(t, <-done)
			if got := waiter.LockPath(); got != requeued {
				t.Errorf("the waiter holds through %s; want its new node %s", got, requeued)
			}
			zktest.Must(t, waiter.Release(ctx))
		})
	}
}

// lowestWatcher grants the lock as the standard driver does, but has every
// waiter watch the lowest node: a driver that embeds the standard one and
// changes one rule, as DRIVERS.md invites.
type lowestWatcher struct {
	locks.StandardLockInternalsDriver
}

func (d lowestWatcher) GetsTheLock(ctx context.Context, c *framework.Client, children []string, name string, maxLeases int) (locks.PredicateResults, error) {
	pr, err := d.StandardLockInternalsDriver.GetsTheLock(ctx, c, children, name, maxLeases)
	if err != nil || pr.GetsTheLock {
		return pr, err
	}
	pr.PathToWatch = children[0]
	return pr, nil
}

// A release signal means "the lowest node held and let go" only under the
// standard driver's own rule. A waiter under a driver that embeds it and
// watches another node than its predecessor must not hold on a signal: here
// the last of three waiters watches the lowest node, whose holder releases
// with a signal (it held after waiting), while the waiter between them still
// waits for its turn.
func TestMutexEmbeddingDriverIgnoresReleaseSignals(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const path = "/signal-embedded"
	direct := zkclient.New(t, srv.ConnectString())
	newMutex := func(c *framework.Client) *locks.InterProcessMutex {
		return built(locks.NewInterProcessMutex(c, path, locks.WithDriver(lowestWatcher{})))
	}
	first := newMutex(direct)
	zktest.Must(t, first.Acquire(ctx))
	second, third := newMutex(direct), newMutex(direct)
	done := make(chan error, 3)
	go func() { done <- second.Acquire(ctx) }()
	waitParticipants(t, first, 2)
	go func() { done <- third.Acquire(ctx) }()
	waitParticipants(t, first, 3)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	last := newMutex(zkclient.New(t, proxy.Addr()))
	proxy.ResetCounts() // only the lock's requests
	go func() { done <- last.Acquire(ctx) }()
	zktest.Eventually(t, 10*time.Second, "the last waiter watching the first", func() bool {
		return proxy.RequestCount(zktest.OpGetData) >= 1
	})

	// The second holds after waiting, so its release fires its signal.
	zktest.Must(t, first.Release(ctx))
	zktest.Must(t, <-done)
	zktest.Eventually(t, 10*time.Second, "the last waiter watching the second", func() bool {
		return proxy.RequestCount(zktest.OpGetChildren2) == 2 && proxy.RequestCount(zktest.OpGetData) >= 2
	})
	zktest.Must(t, second.Release(ctx))
	zktest.Must(t, <-done)
	zktest.Eventually(t, 10*time.Second, "the last waiter acting on the second's release", func() bool {
		return last.IsAcquiredInThisProcess() || proxy.RequestCount(zktest.OpGetChildren2) == 3
	})
	if last.IsAcquiredInThisProcess() {
		t.Fatal("the last waiter holds the lock while the third holds it")
	}
	zktest.Must(t, third.Release(ctx))
	zktest.Must(t, <-done)
	zktest.Must(t, last.Release(ctx))
	if n := proxy.RequestCount(zktest.OpExists); n != 0 {
		t.Errorf("the last waiter watched %d release signals; want none under an embedding driver", n)
	}
}

// Watch events that come after a reconnect come in the order go-zookeeper
// sets the watches again, not in the order of the changes. A waiter behind
// the lowest node whose own node is deleted while it is cut off, just before
// the lowest node is released, must not take the lock on the release: it
// lists again, finds its node gone and queues with a new one. go-zookeeper
// takes a second to reconnect, so the wake-up on the connection state
// usually has the waiter listing again before the events come back; the
// client's ConnectionLosses, checked before any decision on an event, makes
// it certain (framework's TestConnectionLossesCountedBeforeWatchesComeBack).
func TestMutexWaiterCutOffWhileItsNodeIsDeletedQueuesAgain(t *testing.T) {
	srv := zktest.StartServer(t)
	direct := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	waiterClient := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	const rounds = 2
	for round := range rounds {
		ctx := zktest.TestContext(t)
		path := fmt.Sprintf("/cut-off/%d", round)
		holder := built(locks.NewInterProcessMutex(direct, path))
		zktest.Must(t, holder.Acquire(ctx))
		waiter := built(locks.NewInterProcessMutex(waiterClient, path))
		acquired := make(chan error, 1)
		go func() { acquired <- waiter.Acquire(ctx) }()
		old := waitParticipants(t, holder, 2)[1]
		// The holder watches its own node since it took the lock.
		zktest.Eventually(t, 10*time.Second, "the waiter watching the holder and its own node", func() bool {
			return perfWatches(t, srv) == 3
		})

		proxy.Pause()
		proxy.Sever()
		zktest.Must(t, direct.Delete(ctx, old))
		zktest.Must(t, holder.Release(ctx))
		proxy.Resume()
		select {
		case err := <-acquired:
			zktest.Must(t, err)
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: the waiter did not acquire within 30s", round)
		}
		if got := waiter.LockPath(); got == old {
			t.Fatalf("round %d: the waiter holds through its deleted node %s", round, old)
		}
		zktest.Must(t, waiter.Release(ctx))
	}
}
