package locks_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// growthCycles is how many acquire/release cycles TestMutexNoGrowthOverCycles
// runs in all, shared by its contending clients.
const growthCycles = 10_000

// Ten thousand contended acquire/release cycles leave no goroutine and no
// watch behind: after the run, the process is back to the goroutines it had
// before, and the server holds no watch.
func TestMutexNoGrowthOverCycles(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.Context(t, 5*time.Minute)
	const path, clients = "/growth", 4
	handles := make([]*locks.InterProcessMutex, clients)
	for i := range handles {
		handles[i] = built(locks.NewInterProcessMutex(perfClient(t, srv.ConnectString()), path))
	}
	var check locktest.Checker
	run := func(perClient int) {
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for _, m := range handles {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perClient {
					if err := m.Acquire(ctx); err != nil {
						errs <- err
						return
					}
					check.Enter()()
					if err := m.Release(ctx); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}

	run(10) // warm up: every lazily started goroutine exists from now on
	before := perfStableGoroutines(t)
	if w := perfWatches(t, srv); w != 0 {
		t.Fatalf("%d watches on the server before the run; want 0", w)
	}
	notified := perfMntr(t, srv)["zk_cnt_node_deleted_watch_count"]

	start := time.Now()
	run(growthCycles / clients)
	took := time.Since(start)

	after := perfSettledGoroutines(before, 10*time.Second)
	watches := perfWatches(t, srv)
	handOffs := perfMntr(t, srv)["zk_cnt_node_deleted_watch_count"] - notified
	t.Logf("%d cycles by %d clients in %v: %d hand-offs woke a watcher; goroutines %d before, %d after; %d watches after",
		growthCycles, clients, took.Round(time.Millisecond), handOffs, before, after, watches)
	if v := check.Violations(); v != 0 {
		t.Errorf("%d critical sections overlapped", v)
	}
	if after > before {
		t.Errorf("goroutines grew from %d to %d over %d cycles", before, after, growthCycles)
	}
	if watches != 0 {
		t.Errorf("%d watches left on the server after %d cycles; want 0", watches, growthCycles)
	}
	if handOffs == 0 {
		t.Errorf("no release woke a waiting contender: the cycles never contended, so watches went untested")
	}
}

// perfStableGoroutines waits (at most five seconds) until the number of
// goroutines stays the same over three polls 20 ms apart, and returns it.
func perfStableGoroutines(tb testing.TB) int {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	last, same := runtime.NumGoroutine(), 0
	for same < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == last {
			same++
		} else {
			last, same = n, 0
		}
	}
	return last
}
