package prometheus_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/zkcurator/zkcurator/framework"
	zkprom "github.com/zkcurator/zkcurator/metrics/prometheus"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// BenchmarkLockCycle measures an uncontended acquire and release with the
// default NopMetrics and with this adapter, interleaved in rounds against
// one server (each first in every other round, so that neither gains from
// its place), and reports the adapter's cost as a ratio of the two, and
// the heap allocations per cycle of each (the process's, so a background
// ping may add a few).
func BenchmarkLockCycle(b *testing.B) {
	srv := zktest.StartServer(b)
	m, err := zkprom.New(prom.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	nop := built(locks.NewInterProcessMutex(zkclient.New(b, srv.ConnectString()), "/bench/nop"))
	metered := built(locks.NewInterProcessMutex(zkclient.New(b, srv.ConnectString(), framework.WithMetrics(m)), "/bench/prometheus"))
	cycle := func(l *locks.InterProcessMutex) {
		if err := l.Acquire(ctx); err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
	cycle(nop)
	cycle(metered)
	const round = 50
	var spent [2]time.Duration
	var mallocs [2]uint64
	var ms runtime.MemStats
	b.ResetTimer()
	for done, r := 0, 0; done < b.N; done, r = done+round, r+1 {
		n := min(round, b.N-done)
		for k := range 2 {
			i := (k + r) % 2 // each goes first in every other round
			l := []*locks.InterProcessMutex{nop, metered}[i]
			b.StopTimer()
			runtime.ReadMemStats(&ms)
			before := ms.Mallocs
			b.StartTimer()
			began := time.Now()
			for range n {
				cycle(l)
			}
			spent[i] += time.Since(began)
			b.StopTimer()
			runtime.ReadMemStats(&ms)
			mallocs[i] += ms.Mallocs - before
			b.StartTimer()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(spent[0].Nanoseconds())/float64(b.N), "nop-ns/cycle")
	b.ReportMetric(float64(spent[1].Nanoseconds())/float64(b.N), "prometheus-ns/cycle")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "prometheus/nop")
	b.ReportMetric(float64(mallocs[0])/float64(b.N), "nop-allocs/cycle")
	b.ReportMetric(float64(mallocs[1])/float64(b.N), "prometheus-allocs/cycle")
}
