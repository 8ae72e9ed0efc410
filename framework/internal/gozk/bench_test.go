package gozk

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkOwnRequestOverhead sends one exists request through a Link (our
// framing on go-zookeeper's connection) and the same request through
// go-zookeeper, alternately, on one connection, and reports the median of
// each and their ratio.
//
//	go test -run '^$' -bench OwnRequestOverhead -benchtime 5000x ./framework/internal/gozk
func BenchmarkOwnRequestOverhead(b *testing.B) {
	conn, g := gozkConn(b, sharedServer(b).Addr(), Hooks{})
	l := link(b, g)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	body := WatchRequestBody("/")
	ours := make([]time.Duration, 0, b.N)
	theirs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		began := time.Now()
		if _, err := l.Do(ctx, opExists, body); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, _, err := conn.Exists("/"); err != nil {
			b.Fatal(err)
		}
		ours, theirs = append(ours, mid.Sub(began)), append(theirs, time.Since(mid))
	}
	b.StopTimer()
	o, t := median(ours), median(theirs)
	b.ReportMetric(float64(o.Microseconds()), "own-us/req")
	b.ReportMetric(float64(t.Microseconds()), "gozk-us/req")
	b.ReportMetric(float64(o)/float64(t), "ratio")
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
