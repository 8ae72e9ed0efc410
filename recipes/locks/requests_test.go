package locks_test

// Deterministic performance tests: the ZooKeeper requests of a mutex's fast
// paths, counted by a zktest.Proxy between the client and the server. Pings
// are not counted; every other request is.

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// An uncontended Acquire+Release on an existing lock path with the standard
// driver costs exactly four requests in three round trips: the create of the
// lock node, one children listing with the read of our node beside it (its
// czxid is the fencing token, its watch tells the hold of the node's
// deletion) and the delete, on every cycle. No waiter can be watching for
// its release signal, so the delete is a plain one.
func TestMutexUncontendedCycleCostsFourRequests(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, time.Minute)
	want := map[zktest.Op]int64{zktest.OpCreate: 1, zktest.OpGetChildren2: 1, zktest.OpGetData: 1, zktest.OpDelete: 1}

	t.Run("plain", func(t *testing.T) {
		const path = "/requests/uncontended"
		// A persistent lock path, so that no container reaping between
		// cycles makes the driver create parents again.
		setup := perfClient(t, srv.ConnectString())
		_, err := setup.Create(ctx, path, nil, framework.CreatingParentsIfNeeded())
		zktest.Must(t, err)
		proxy := perfProxy(t, srv.ConnectString())
		m := built(locks.NewInterProcessMutex(perfClient(t, proxy.Addr()), path))
		for cycle := range 5 {
			proxy.ResetCounts()
			zktest.Must(t, m.Acquire(ctx))
			zktest.Must(t, m.Release(ctx))
			if got := perfCounts(proxy); !maps.Equal(got, want) {
				t.Errorf("cycle %d cost %s; want %s", cycle, perfCountsString(got), perfCountsString(want))
			}
		}
	})

	// Under a namespace the client checks the namespace root once, on its
	// first operation; the cycles themselves cost the same four requests.
	t.Run("namespace", func(t *testing.T) {
		const ns, path = "requests-ns", "/uncontended"
		setup := perfClient(t, srv.ConnectString(), framework.WithNamespace(ns))
		_, err := setup.Create(ctx, path, nil, framework.CreatingParentsIfNeeded())
		zktest.Must(t, err)
		proxy := perfProxy(t, srv.ConnectString())
		m := built(locks.NewInterProcessMutex(perfClient(t, proxy.Addr(), framework.WithNamespace(ns)), path))
		for cycle := range 5 {
			proxy.ResetCounts()
			zktest.Must(t, m.Acquire(ctx))
			zktest.Must(t, m.Release(ctx))
			got := perfCounts(proxy)
			if cycle == 0 {
				t.Logf("first cycle of a namespaced client: %s", perfCountsString(got))
				continue
			}
			if !maps.Equal(got, want) {
				t.Errorf("cycle %d cost %s; want %s", cycle, perfCountsString(got), perfCountsString(want))
			}
		}
	})
}

// A waiter whose predecessor is the lowest contender (the holder) lists the
// children once for its whole Acquire: when the holder's node goes, it holds
// without listing again. Its Acquire costs one create, one listing and two
// watches (getData of the holder's node and of its own), and nothing else.
func TestMutexHandOffFromTheLowestCostsTheWaiterNoListing(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, time.Minute)
	const path = "/requests/handoff"
	holder := built(locks.NewInterProcessMutex(perfClient(t, srv.ConnectString()), path))
	zktest.Must(t, holder.Acquire(ctx))

	proxy := perfProxy(t, srv.ConnectString())
	waiter := built(locks.NewInterProcessMutex(perfClient(t, proxy.Addr()), path))
	proxy.ResetCounts()
	acquired := make(chan error, 1)
	go func() { acquired <- waiter.Acquire(ctx) }()
	// The holder watches its own node (set beside its listing); the waiter
	// its own node and the holder's.
	zktest.Eventually(t, 10*time.Second, "the waiter watching the holder's node", func() bool {
		return perfWatches(t, srv) == 3
	})
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
	want := map[zktest.Op]int64{zktest.OpCreate: 1, zktest.OpGetChildren2: 1, zktest.OpGetData: 2}
	if got := perfCounts(proxy); !maps.Equal(got, want) {
		t.Errorf("the waiter's Acquire cost %s; want %s", perfCountsString(got), perfCountsString(want))
	}
	zktest.Must(t, waiter.Release(ctx))
	// It held after waiting, so a later waiter may watch its release signal:
	// the delete is a multi that fires it.
	want[zktest.OpMulti] = 1
	if got := perfCounts(proxy); !maps.Equal(got, want) {
		t.Errorf("the waiter's Acquire+Release cost %s; want %s", perfCountsString(got), perfCountsString(want))
	}
}

// A waiter at the end of a queue that drains in order (each contender holds,
// then releases) holds on its predecessor's release signal, without a single
// request between that release and holding the lock, however many contenders
// were ahead of it when it listed the children; go-zookeeper's lock lists the
// children again on every hand-off. Its whole Acquire costs one create, one
// listing and its watches: its own node and the predecessor's (getData) and,
// unless the predecessor is the lowest, the predecessor's release signal
// (exists).
func TestMutexHandOffCostDoesNotGrowWithQueueDepth(t *testing.T) {
	srv := zktest.StartServer(t)
	for _, ahead := range []int{1, 4, 12} {
		t.Run(fmt.Sprintf("ahead=%d", ahead), func(t *testing.T) {
			ctx := zktest.Context(t, time.Minute)
			path := fmt.Sprintf("/requests/queue-%d", ahead)
			direct := perfClient(t, srv.ConnectString())
			holder := built(locks.NewInterProcessMutex(direct, path))
			zktest.Must(t, holder.Acquire(ctx))

			// The contenders between the holder and the measured waiter
			// queue one after the other, so their order is known; each
			// releases as soon as it holds.
			errs := make(chan error, ahead)
			for i := 1; i < ahead; i++ {
				m := built(locks.NewInterProcessMutex(direct, path))
				go func() { errs <- perfCycle(ctx, m) }()
				waitParticipants(t, holder, i+1)
			}

			proxy := perfProxy(t, srv.ConnectString())
			waiterClient := perfClient(t, proxy.Addr())
			waiter := built(locks.NewInterProcessMutex(waiterClient, path))
			proxy.ResetCounts()
			acquired := make(chan error, 1)
			go func() { acquired <- waiter.Acquire(ctx) }()
			// The waiter watches its own node and its predecessor and, unless
			// the predecessor is the holder, the predecessor's release
			// signal. Its session's own watches say when it waits: the
			// predecessor's node is watched by its owner's session too.
			wantWatches := 2
			if ahead > 1 {
				wantWatches = 3
			}
			zktest.Eventually(t, 10*time.Second, "the waiter watching its predecessor", func() bool {
				return len(lockWatches(watchedBy(t, srv, waiterClient.SessionID()))) == wantWatches
			})
			waiting := perfCounts(proxy)
			proxy.ResetCounts()

			zktest.Must(t, holder.Release(ctx))
			for range ahead - 1 {
				zktest.Must(t, <-errs)
			}
			select {
			case err := <-acquired:
				zktest.Must(t, err)
			case <-time.After(20 * time.Second):
				t.Fatal("the waiter did not acquire within 20s of the release")
			}
			handOff := perfCounts(proxy)
			zktest.Must(t, waiter.Release(ctx))
			t.Logf("%d ahead: the last waiter's Acquire cost %s before the queue moved, then %s",
				ahead, perfCountsString(waiting), perfCountsString(handOff))

			wantWaiting := map[zktest.Op]int64{zktest.OpCreate: 1, zktest.OpGetChildren2: 1, zktest.OpGetData: 2}
			if ahead > 1 {
				wantWaiting[zktest.OpExists] = 1
			}
			if !maps.Equal(waiting, wantWaiting) {
				t.Errorf("queueing cost %s; want %s", perfCountsString(waiting), perfCountsString(wantWaiting))
			}
			if len(handOff) != 0 {
				t.Errorf("with %d contenders ahead, the hand-off to the waiter cost it %s; want nothing",
					ahead, perfCountsString(handOff))
			}
			if w := perfWatches(t, srv); w != 0 {
				t.Errorf("%d watches left after the queue drained; want 0", w)
			}
		})
	}
}

// perfCycle acquires and releases m once.
func perfCycle(ctx context.Context, m *locks.InterProcessMutex) error {
	if err := m.Acquire(ctx); err != nil {
		return err
	}
	return m.Release(ctx)
}
