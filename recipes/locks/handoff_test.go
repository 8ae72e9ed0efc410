package locks_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
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
			must(t, locktest.NewClient(t, srv.ConnectString()).Delete(testCtx(t), node))
		}},
		{"expired", func(t *testing.T, _ context.CancelFunc, _ string, proxy *zktest.Proxy) { proxy.Pause() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			path := "/signal-" + tc.name
			holder := locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), path)
			must(t, holder.Acquire(ctx))

			middleProxy := newProxy(t, srv.ConnectString())
			middleClient := locktest.NewClient(t, middleProxy.Addr(), framework.WithSessionTimeout(shortSession))
			middle := locks.NewInterProcessMutex(middleClient, path)
			middleCtx, cancelMiddle := context.WithCancel(ctx)
			defer cancelMiddle()
			middleDone := make(chan error, 1)
			go func() { middleDone <- middle.Acquire(middleCtx) }()
			middleNode := waitParticipants(t, holder, 2)[1]

			waiterProxy := newProxy(t, srv.ConnectString())
			waiter := locks.NewInterProcessMutex(locktest.NewClient(t, waiterProxy.Addr()), path)
			acquired := make(chan error, 1)
			go func() { acquired <- waiter.Acquire(ctx) }()
			waitParticipants(t, holder, 3)
			locktest.Eventually(t, 10*time.Second, "the waiter watching the middle node and its signal", func() bool {
				return waiterProxy.RequestCount(zktest.OpGetData) == 1 && waiterProxy.RequestCount(zktest.OpExists) == 1
			})

			tc.end(t, cancelMiddle, middleNode, middleProxy)
			// The waiter lists again and watches the holder's node.
			locktest.Eventually(t, 30*time.Second, "the waiter watching the holder", func() bool {
				return waiterProxy.RequestCount(zktest.OpGetData) == 2
			})
			if n := waiterProxy.RequestCount(zktest.OpGetChildren2); n != 2 {
				t.Errorf("the waiter listed the children %d times; want 2", n)
			}
			select {
			case err := <-acquired:
				t.Fatalf("the waiter's Acquire returned (%v) while the holder held the lock", err)
			default:
			}

			must(t, holder.Release(ctx))
			select {
			case err := <-acquired:
				must(t, err)
			case <-time.After(10 * time.Second):
				t.Fatal("the waiter did not acquire within 10s of the release")
			}
			must(t, waiter.Release(ctx))
			middleProxy.Resume()
			switch err := <-middleDone; {
			case tc.name == "cancelled" && err == nil:
				t.Error("the cancelled Acquire returned no error")
			case err == nil:
				// A middle contender whose node went away tries again with a
				// new node and gets the lock once everyone has gone.
				must(t, middle.Release(ctx))
			}
			locktest.Eventually(t, 10*time.Second, "no contender and no watch left", func() bool {
				nodes, err := holder.ParticipantNodes(ctx)
				return err == nil && len(nodes) == 0 && perfWatches(t, srv) == 0
			})
		})
	}
}
