package prometheus_test

import (
	"context"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/zkcurator/zkcurator/framework"
	zkprom "github.com/zkcurator/zkcurator/metrics/prometheus"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// BenchmarkLockCycle measures an uncontended acquire and release with the
// default NopMetrics and with this adapter, interleaved in rounds against
// one server, and reports the adapter's cost as a ratio of the two.
func BenchmarkLockCycle(b *testing.B) {
	srv := zktest.StartServer(b)
	m, err := zkprom.New(prom.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	nop := locks.NewInterProcessMutex(locktest.NewClient(b, srv.ConnectString()), "/bench/nop")
	metered := locks.NewInterProcessMutex(locktest.NewClient(b, srv.ConnectString(), framework.WithMetrics(m)), "/bench/prometheus")
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
	b.ResetTimer()
	for done := 0; done < b.N; done += round {
		n := min(round, b.N-done)
		for i, l := range []*locks.InterProcessMutex{nop, metered} {
			began := time.Now()
			for range n {
				cycle(l)
			}
			spent[i] += time.Since(began)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(spent[0].Nanoseconds())/float64(b.N), "nop-ns/cycle")
	b.ReportMetric(float64(spent[1].Nanoseconds())/float64(b.N), "prometheus-ns/cycle")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "prometheus/nop")
}
