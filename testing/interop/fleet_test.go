package interop

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// TestMixedFleetContention runs contenders of every library on one mutex,
// each incrementing a shared counter under the lock by reading it and writing
// it back without a version: the counter must end at exactly the number of
// increments and no two reported holds may overlap.
//
//   - GoJavaPython: zkcurator, go-zookeeper, Curator and Kazoo's Lock under
//     Curator's node name (CuratorNamedLock), the Python configuration that
//     Curator can see.
//   - GoPython: zkcurator, go-zookeeper and Kazoo's Lock with its own node
//     names and extra_lock_patterns=["-lock-"], which is enough while no
//     Curator shares the path.
func TestMixedFleetContention(t *testing.T) {
	const rounds = 20
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	kazoo := StartKazooHelper(t, srv.ConnectString())

	for _, withJava := range []bool{true, false} {
		name := "GoPython"
		if withJava {
			name = "GoJavaPython"
		}
		t.Run(name, func(t *testing.T) {
			ctx := testContext(t, 40*time.Second)
			path := "/interop/fleet/" + name + "/lock"
			counterPath := "/interop/fleet/" + name + "/counter"
			obs.create(counterPath, []byte("0"))

			var calls []*Call
			var owners []string
			for i := range 2 {
				handle := fresh("py")
				var err error
				if withJava {
					err = kazoo.CuratorNamedLock(ctx, handle, path)
				} else {
					err = kazoo.Mutex(ctx, handle, path, KazooMutexPatterns...)
				}
				if err != nil {
					t.Fatal(err)
				}
				c, err := kazoo.Count(handle, counterPath, rounds, acquireWait)
				if err != nil {
					t.Fatal(err)
				}
				calls, owners = append(calls, c), append(owners, "kazoo:"+handle)
				if withJava {
					jh := fmt.Sprintf("%s-%d", fresh("count"), i)
					if err := java.Mutex(ctx, jh, path); err != nil {
						t.Fatal(err)
					}
					c, err := java.Count(jh, counterPath, rounds, acquireWait)
					if err != nil {
						t.Fatal(err)
					}
					calls, owners = append(calls, c), append(owners, "curator:"+jh)
				}
			}

			type result struct {
				holds []hold
				err   error
			}
			results := make(chan result, 3)
			gc := newGoClient(t, srv.ConnectString())
			for i := range 2 {
				m := built(locks.NewInterProcessMutex(gc, path))
				go func() {
					holds, err := countInGo(ctx, gc, m, fmt.Sprintf("zkcurator-%d", i), counterPath, rounds)
					results <- result{holds, err}
				}()
			}
			gozk := newGozkContender(t, srv.ConnectString(), "go-zookeeper", path)
			go func() {
				holds, err := countWithGozk(gozk, counterPath, rounds)
				results <- result{holds, err}
			}()

			var holds []hold
			for range 3 {
				select {
				case r := <-results:
					if r.err != nil {
						t.Fatal(r.err)
					}
					holds = append(holds, r.holds...)
				case <-ctx.Done():
					t.Fatalf("Go contenders did not finish: %v", ctx.Err())
				}
			}
			for i, c := range calls {
				if _, err := c.Await(ctx, KindCounted); err != nil {
					t.Fatal(err)
				}
				for _, e := range c.Events(KindRound) {
					h, err := holdFromRound(owners[i], e)
					if err != nil {
						t.Fatal(err)
					}
					holds = append(holds, h)
				}
			}
			want := (3 + len(calls)) * rounds
			if len(holds) != want {
				t.Fatalf("%d holds reported, want %d", len(holds), want)
			}
			checkExclusive(t, holds)
			if got := obs.counter(counterPath); got != int64(want) {
				t.Fatalf("counter = %d after %d increments under the lock: increments were lost", got, want)
			}
			t.Logf("%d increments by %d contenders of %s, no overlap", want, 3+len(calls), name)
		})
	}
}

// countWithGozk increments the counter at counterPath rounds times, each time
// under go-zookeeper's zk.Lock, and returns its holds.
func countWithGozk(g *gozkContender, counterPath string, rounds int) ([]hold, error) {
	holds := make([]hold, 0, rounds)
	for range rounds {
		if err := g.lock.Lock(); err != nil {
			return nil, fmt.Errorf("%s: lock: %w", g, err)
		}
		from := now()
		incErr := incrementGozk(g.conn, counterPath)
		to := now()
		if err := g.lock.Unlock(); err != nil {
			return nil, fmt.Errorf("%s: unlock: %w", g, err)
		}
		if incErr != nil {
			return nil, fmt.Errorf("%s: %w", g, incErr)
		}
		holds = append(holds, hold{owner: g.name, from: from, to: to})
	}
	return holds, nil
}

// incrementGozk is increment over a plain go-zookeeper connection.
func incrementGozk(conn *zk.Conn, path string) error {
	data, _, err := conn.Get(path)
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return fmt.Errorf("counter %s holds %q: %w", path, data, err)
	}
	_, err = conn.Set(path, []byte(strconv.FormatInt(n+1, 10)), -1)
	return err
}
