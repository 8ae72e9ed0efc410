package framework_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// BenchmarkRequestOverhead sends one exists request through a Client and the
// same request straight through a go-zookeeper connection, alternately, on
// one server, and reports the median of each and their ratio. A Client
// honours ctx while a request is in flight, which go-zookeeper's blocking
// calls cannot: it runs each on a goroutine of its own, and the difference
// is what that costs (with the retry loop and metrics around it).
//
//	go test -run '^$' -bench RequestOverhead -benchtime 5000x ./framework
func BenchmarkRequestOverhead(b *testing.B) {
	srv := sharedServer(b)
	c := newClient(b, srv.ConnectString())
	raw := rawConn(b, srv.ConnectString())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ours := make([]time.Duration, 0, b.N)
	theirs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		began := time.Now()
		if _, err := c.Exists(ctx, "/"); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, _, err := raw.Exists("/"); err != nil {
			b.Fatal(err)
		}
		ours, theirs = append(ours, mid.Sub(began)), append(theirs, time.Since(mid))
	}
	b.StopTimer()
	o, t := median(ours), median(theirs)
	b.ReportMetric(float64(o.Microseconds()), "zkcurator-us/req")
	b.ReportMetric(float64(t.Microseconds()), "gozk-us/req")
	b.ReportMetric(float64(o)/float64(t), "ratio")
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// rawConn is a plain go-zookeeper connection to connect, connected, closed
// with the benchmark (its goroutines ended before the leak check).
func rawConn(tb testing.TB, connect string) *zk.Conn {
	tb.Helper()
	conn, events, err := zk.Connect([]string{connect}, testSessionTimeout*5, zk.WithLogger(quiet{}))
	if err != nil {
		tb.Fatalf("zk.Connect(%s): %v", connect, err)
	}
	tb.Cleanup(func() {
		conn.Close()
		for range events { // closed once its goroutines end
		}
	})
	deadline := time.After(testWait)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return conn
			}
		case <-deadline:
			tb.Fatalf("no session from %s within %v", connect, testWait)
		}
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
