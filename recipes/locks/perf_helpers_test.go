package locks_test

// Helpers of the performance tests and benchmarks (requests_test.go,
// growth_test.go, scale_test.go, bench_test.go).

import (
	"bufio"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// perfOps are every opcode a Proxy names, pings excepted: a request of any
// other kind shows up in perfCounts.
var perfOps = []zktest.Op{
	zktest.OpCreate, zktest.OpDelete, zktest.OpExists, zktest.OpGetData, zktest.OpSetData,
	zktest.OpGetACL, zktest.OpSetACL, zktest.OpGetChildren, zktest.OpSync, zktest.OpGetChildren2,
	zktest.OpCheck, zktest.OpMulti, zktest.OpCreate2, zktest.OpCreateContainer, zktest.OpCreateTTL,
	zktest.OpSetAuth, zktest.OpSetWatches, zktest.OpClose,
}

// perfCounts returns the proxy's non-zero request counts, pings excluded.
func perfCounts(p *zktest.Proxy) map[zktest.Op]int64 {
	counts := make(map[zktest.Op]int64)
	for _, op := range perfOps {
		if n := p.RequestCount(op); n != 0 {
			counts[op] = n
		}
	}
	return counts
}

// perfCountsString renders counts as "create=1 getChildren2=1".
func perfCountsString(counts map[zktest.Op]int64) string {
	var parts []string
	for _, op := range perfOps {
		if n, ok := counts[op]; ok {
			parts = append(parts, fmt.Sprintf("%v=%d", op, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// perfSession is the session timeout of the performance tests' clients:
// long enough that a stall of a loaded machine does not suspend or expire a
// session, which would add requests and wake waiters.
const perfSession = 30 * time.Second

// perfClient is zkclient.New with a perfSession session.
func perfClient(tb testing.TB, connect string, opts ...framework.Option) *framework.Client {
	tb.Helper()
	return zkclient.New(tb, connect, append([]framework.Option{framework.WithSessionTimeout(perfSession)}, opts...)...)
}

func perfProxy(tb testing.TB, target string) *zktest.Proxy {
	tb.Helper()
	p, err := zktest.NewProxy(target)
	if err != nil {
		tb.Fatalf("zktest.NewProxy(%s): %v", target, err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p
}

// perfMntr returns the server's numeric "mntr" values by name.
func perfMntr(tb testing.TB, srv *zktest.Server) map[string]int64 {
	tb.Helper()
	out, err := srv.FourLetter(context.Background(), "mntr")
	if err != nil {
		tb.Fatal(err)
	}
	values := make(map[string]int64)
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(value, 10, 64); err == nil {
			values[name] = n
		}
	}
	return values
}

// perfWatches returns how many watches the server holds for lock recipes:
// one per session and watched path, leaving out the framework's own sentinel
// watch on /zookeeper (framework/rewatch.go), one per client.
func perfWatches(tb testing.TB, srv *zktest.Server) int {
	tb.Helper()
	n := 0
	for _, sessions := range perfWatchesByPath(tb, srv) {
		n += sessions
	}
	return n
}

// perfWatchedPaths returns how many distinct paths the server watches for
// lock recipes: unlike the watch total it does not depend on which of several
// contenders share a connection.
func perfWatchedPaths(tb testing.TB, srv *zktest.Server) int {
	tb.Helper()
	return len(perfWatchesByPath(tb, srv))
}

// perfWatchesByPath reads the server's watches (four-letter command wchp)
// as the number of sessions watching each path but /zookeeper.
func perfWatchesByPath(tb testing.TB, srv *zktest.Server) map[string]int {
	tb.Helper()
	counts, err := srv.WatchCounts(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return counts
}

// perfSettledGoroutines polls runtime.NumGoroutine for up to timeout until it
// is at most want, and returns the last count.
func perfSettledGoroutines(want int, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// perfGozkConn connects go-zookeeper itself to connect, waits for its
// session and closes it when the test ends, waiting for its goroutines.
func perfGozkConn(tb testing.TB, connect string) *zk.Conn {
	tb.Helper()
	conn, events, err := zk.Connect([]string{connect}, perfSession, zk.WithLogger(perfQuietLogger{}))
	if err != nil {
		tb.Fatalf("zk.Connect(%s): %v", connect, err)
	}
	tb.Cleanup(func() {
		conn.Close()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case _, ok := <-events:
				if !ok {
					return
				}
			case <-deadline:
				tb.Errorf("go-zookeeper connection to %s still running 10s after Close", connect)
				return
			}
		}
	})
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				tb.Fatalf("go-zookeeper: connection to %s closed before a session", connect)
			}
			if ev.State == zk.StateHasSession {
				return conn
			}
		case <-timeout:
			tb.Fatalf("go-zookeeper: no session with %s within 15s", connect)
		}
	}
}

// perfQuietLogger drops go-zookeeper's connection messages.
type perfQuietLogger struct{}

func (perfQuietLogger) Printf(string, ...any) {}
