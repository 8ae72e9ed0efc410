package locks_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Benchmarks of InterProcessMutex against go-zookeeper's own zk.Lock (the
// Go peer) on one server, each as sub-benchmarks of one run so that benchstat
// compares them directly:
//
//	go test -run '^$' -bench 'BenchmarkMutex' -count 6 ./recipes/locks/ | tee new.txt
//	benchstat -col /impl new.txt

// benchMutex is one lock handle of an implementation under test.
type benchMutex interface {
	lock(ctx context.Context) error
	unlock(ctx context.Context) error
}

// benchImpl opens, for a benchmark, a new session on connect and returns a
// handle on path through it; the session ends with the benchmark run.
type benchImpl struct {
	name   string
	handle func(tb testing.TB, connect, path string) benchMutex
}

var benchImpls = []benchImpl{
	{"zkcurator", func(tb testing.TB, connect, path string) benchMutex {
		return curatorBenchMutex{built(locks.NewInterProcessMutex(perfClient(tb, connect), path))}
	}},
	{"zkcurator-unfair", func(tb testing.TB, connect, path string) benchMutex {
		c := perfClient(tb, connect)
		return curatorBenchMutex{built(locks.NewInterProcessMutex(c, path, locks.WithDriver(locks.UnfairLockInternalsDriver{})))}
	}},
	{"gozk", func(tb testing.TB, connect, path string) benchMutex {
		return gozkBenchMutex{zk.NewLock(perfGozkConn(tb, connect), path, zk.WorldACL(zk.PermAll))}
	}},
}

type curatorBenchMutex struct{ m *locks.InterProcessMutex }

func (m curatorBenchMutex) lock(ctx context.Context) error   { return m.m.Acquire(ctx) }
func (m curatorBenchMutex) unlock(ctx context.Context) error { return m.m.Release(ctx) }

// gozkBenchMutex is zk.Lock, which takes no context.
type gozkBenchMutex struct{ l *zk.Lock }

func (m gozkBenchMutex) lock(context.Context) error   { return m.l.Lock() }
func (m gozkBenchMutex) unlock(context.Context) error { return m.l.Unlock() }

// BenchmarkMutexUncontended is one client acquiring and releasing a lock
// nobody else wants: the round-trip floor (three requests a cycle).
func BenchmarkMutexUncontended(b *testing.B) {
	srv := zktest.StartServer(b)
	for _, impl := range benchImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			benchCycles(b, srv.ConnectString(), impl, "/bench/uncontended/"+impl.name, 1)
		})
	}
}

// BenchmarkMutexContended is several clients, each with its own session,
// acquiring and releasing one lock in a loop: throughput is bound by the
// hand-off from one holder to the next. ns/op is wall time per cycle of all
// clients together.
func BenchmarkMutexContended(b *testing.B) {
	srv := zktest.StartServer(b)
	for _, clients := range []int{4, 16} {
		for _, impl := range benchImpls {
			b.Run(fmt.Sprintf("clients=%d/impl=%s", clients, impl.name), func(b *testing.B) {
				benchCycles(b, srv.ConnectString(), impl, fmt.Sprintf("/bench/contended-%d/%s", clients, impl.name), clients)
			})
		}
	}
}

// benchCycles runs b.N acquire/release cycles shared among clients sessions
// and reports throughput and the latency of a cycle. It fails on any overlap
// of critical sections.
func benchCycles(b *testing.B, connect string, impl benchImpl, path string, clients int) {
	ctx := zktest.Context(b, 10*time.Minute)
	handles := make([]benchMutex, clients)
	for i := range handles {
		handles[i] = impl.handle(b, connect, path)
	}
	var check locktest.Checker
	latencies := make([][]time.Duration, clients)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	b.ResetTimer()
	for i, m := range handles {
		share := b.N / clients
		if i < b.N%clients {
			share++
		}
		latencies[i] = make([]time.Duration, 0, share)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range share {
				start := time.Now()
				if err := m.lock(ctx); err != nil {
					errs <- err
					return
				}
				check.Enter()()
				if err := m.unlock(ctx); err != nil {
					errs <- err
					return
				}
				latencies[i] = append(latencies[i], time.Since(start))
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	if v := check.Violations(); v != 0 {
		b.Fatalf("%d critical sections overlapped", v)
	}
	all := slices.Concat(latencies...)
	slices.Sort(all)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(benchPercentileMs(all, 50), "p50-ms")
	b.ReportMetric(benchPercentileMs(all, 99), "p99-ms")
}

// benchPercentileMs returns the nearest-rank p-th percentile of sorted, in
// milliseconds.
func benchPercentileMs(sorted []time.Duration, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := max((p*len(sorted)+99)/100, 1)
	return float64(sorted[rank-1]) / float64(time.Millisecond)
}
