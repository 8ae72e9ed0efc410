package locks_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// naiveDriver is the random-suffix driver people write for Curator: ephemeral
// nodes with a suffix of the caller's choosing, and the lowest suffix "holds".
type naiveDriver struct {
	locks.StandardLockInternalsDriver
	suffix string
}

func (d naiveDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	return c.Create(ctx, path+d.suffix, data, framework.WithMode(framework.Ephemeral), framework.WithProtection(), framework.CreatingParentContainersIfNeeded())
}

func (naiveDriver) NodesSortInCreationOrder() bool { return false }

// fixedUnfairDriver is our unfair driver with a chosen suffix, so the same
// schedule can be replayed against it.
type fixedUnfairDriver struct {
	locks.UnfairLockInternalsDriver
	suffix string
}

func (d fixedUnfairDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	return naiveDriver{suffix: "u" + d.suffix}.CreatesTheLock(ctx, c, path, data) // the unfair driver's key: "u<digits>"
}

// TestUnfairDriverKeepsExclusionWhereNaiveDriverBreaksIt replays one schedule:
// A holds with a high suffix, then B arrives with a lower one. The naive
// driver lets B in while A still holds; ours makes B wait for A's release.
func TestUnfairDriverKeepsExclusionWhereNaiveDriverBreaksIt(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	schedule := func(path string, high, low locks.LockInternalsDriver) (bOverlapped bool) {
		a := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), path, locks.WithDriver(high)))
		b := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), path, locks.WithDriver(low)))
		zktest.Must(t, a.Acquire(ctx))
		ok, err := b.TryAcquire(ctx, 500*time.Millisecond)
		zktest.Must(t, err)
		if ok {
			zktest.Must(t, b.Release(ctx))
		}
		zktest.Must(t, a.Release(ctx))
		return ok
	}
	if !schedule("/naive", naiveDriver{suffix: "9000000000"}, naiveDriver{suffix: "1000000000"}) {
		t.Fatal("the naive driver did not show its double holder; the regression schedule is broken")
	}
	if schedule("/unfair", fixedUnfairDriver{suffix: "9000000000"}, fixedUnfairDriver{suffix: "1000000000"}) {
		t.Fatal("our unfair driver let a newcomer with a lower suffix in while the lock was held")
	}
	// And B does get the lock once A releases.
	a := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/unfair2", locks.WithDriver(fixedUnfairDriver{suffix: "9000000000"})))
	b := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), "/unfair2", locks.WithDriver(fixedUnfairDriver{suffix: "1000000000"})))
	zktest.Must(t, a.Acquire(ctx))
	got := make(chan error, 1)
	go func() { got <- b.Acquire(ctx) }()
	waitParticipants(t, a, 2)
	zktest.Must(t, a.Release(ctx))
	zktest.Must(t, <-got)
	zktest.Must(t, b.Release(ctx))
}

func TestUnfairDriverExcludesUnderContention(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const clients, perClient, rounds = 4, 4, 50
	var mutexes []*locks.InterProcessMutex
	for i := 0; i < clients; i++ {
		c := zkclient.New(t, srv.ConnectString())
		for j := 0; j < perClient; j++ {
			mutexes = append(mutexes, built(locks.NewInterProcessMutex(c, "/unfair-contention", locks.WithDriver(locks.UnfairLockInternalsDriver{SuffixDigits: 6}))))
		}
	}
	var check locktest.Checker
	zktest.Must(t, locktest.Contend(ctx, mutexes, rounds, 0, &check))
	if v, n := check.Violations(), check.Entries(); v != 0 || n != clients*perClient*rounds {
		t.Fatalf("violations %d, entries %d; want 0, %d", v, n, clients*perClient*rounds)
	}
}

// TestAcquisitionOrderFairVersusUnfair queues waiters in a known order behind
// a holder and records the order in which they acquire. The fair driver must
// keep arrival order every round; the unfair driver's order is a random
// permutation (identical to arrival with probability 1/720 per round), so
// with 5 rounds of 6 waiters at least 4 rounds must differ.
func TestAcquisitionOrderFairVersusUnfair(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const waiters, rounds = 6, 5
	clients := make([]*framework.Client, waiters+1)
	for i := range clients {
		clients[i] = zkclient.New(t, srv.ConnectString())
	}
	round := func(path string, driver locks.LockInternalsDriver) []int {
		holder := built(locks.NewInterProcessMutex(clients[waiters], path, locks.WithDriver(driver)))
		zktest.Must(t, holder.Acquire(ctx))
		order := make(chan int, waiters)
		var wg sync.WaitGroup
		for i := 0; i < waiters; i++ {
			m := built(locks.NewInterProcessMutex(clients[i], path, locks.WithDriver(driver)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := m.Acquire(ctx); err != nil {
					t.Error(err)
					return
				}
				order <- i
				_ = m.Release(ctx)
			}()
			waitParticipants(t, holder, i+2) // arrival order is i
		}
		zktest.Must(t, holder.Release(ctx))
		wg.Wait()
		close(order)
		var got []int
		for i := range order {
			got = append(got, i)
		}
		return got
	}
	inOrder := func(o []int) bool {
		for i, v := range o {
			if v != i {
				return false
			}
		}
		return len(o) == waiters
	}
	for r := 0; r < 2; r++ {
		if o := round("/order-fair", locks.StandardLockInternalsDriver{}); !inOrder(o) {
			t.Fatalf("fair driver: acquisition order %v, want arrival order", o)
		}
	}
	differ := 0
	for r := 0; r < rounds; r++ {
		o := round("/order-unfair", locks.UnfairLockInternalsDriver{})
		if len(o) != waiters {
			t.Fatalf("unfair round %d: only %d acquisitions", r, len(o))
		}
		if !inOrder(o) {
			differ++
		}
		t.Logf("unfair round %d: acquisition order %v", r, o)
	}
	if differ < rounds-1 {
		t.Fatalf("unfair driver kept arrival order in %d of %d rounds", rounds-differ, rounds)
	}
}
