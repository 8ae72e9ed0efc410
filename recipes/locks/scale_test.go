package locks_test

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The scale scenario: scaleWaiters goroutines, each with a handle of its
// own, wait on one lock through scaleClients clients while another session
// holds it.
const (
	scaleWaiters = 1000
	scaleClients = 10
)

// scaleResult is what one run of the scale scenario measured.
type scaleResult struct {
	goroutinesPerWaiter float64 // while waiting: its own and any started on its behalf
	heapPerWaiter       float64 // bytes of live heap while waiting
	stackPerWaiter      float64 // bytes of goroutine stacks while waiting
	notifyingDeletes    int64   // node deletions that notified at least one watcher
	notifications       int64   // watchers those deletions notified
	notifyingSignals    int64   // release signals (node creations) that notified a watcher
	signalNotifications int64   // watchers those signals notified
	childWatchFirings   int64   // children watches that fired
	drain               time.Duration
	violations, entries int
}

// runWaiterScale runs the scale scenario once on its own lock path.
func runWaiterScale(tb testing.TB, srv *zktest.Server, path string) scaleResult {
	tb.Helper()
	ctx := zktest.Context(tb, 5*time.Minute)
	holder := built(locks.NewInterProcessMutex(perfClient(tb, srv.ConnectString()), path))
	zktest.Must(tb, holder.Acquire(ctx))
	clients := make([]*framework.Client, scaleClients)
	for i := range clients {
		clients[i] = perfClient(tb, srv.ConnectString())
	}
	if w := perfWatches(tb, srv); w != 1 {
		tb.Fatalf("%d watches on the server before the waiters start; want 1, the holder's of its own node", w)
	}

	// Waiters and every goroutine started on their behalf carry this label,
	// so that they can be told from everyone else's.
	labeled := pprof.WithLabels(ctx, pprof.Labels(scaleLabel, path))
	mem0 := perfLiveMemory()
	var check locktest.Checker
	done := make(chan error, scaleWaiters)
	for i := range scaleWaiters {
		go func() {
			pprof.SetGoroutineLabels(labeled)
			m := built(locks.NewInterProcessMutex(clients[i%scaleClients], path))
			if err := m.Acquire(ctx); err != nil {
				done <- fmt.Errorf("waiter %d: %w", i, err)
				return
			}
			check.Enter()()
			done <- m.Release(ctx)
		}()
	}
	// Each waiter watches its own node and its predecessor and, but for the
	// first one, whose predecessor is the holder, its predecessor's release
	// signal: every lock node and every signal but the last waiter's.
	zktest.Eventually(tb, 2*time.Minute, fmt.Sprintf("all %d waiters watching", scaleWaiters), func() bool {
		return perfWatchedPaths(tb, srv) == 2*scaleWaiters
	})
	// A waiter's request goroutines end just after their replies: allow
	// them a moment.
	var goroutines int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		goroutines = perfLabeledGoroutines(scaleLabel, path)
		if goroutines <= scaleWaiters || time.Now().After(deadline) {
			break
		}
	}
	mem1 := perfLiveMemory()

	before := perfMntr(tb, srv)
	start := time.Now()
	zktest.Must(tb, holder.Release(ctx))
	for i := range scaleWaiters {
		select {
		case err := <-done:
			zktest.Must(tb, err)
		case <-ctx.Done():
			tb.Fatalf("only %d of %d waiters acquired and released", i, scaleWaiters)
		}
	}
	drain := time.Since(start)
	after := perfMntr(tb, srv)
	delta := func(name string) int64 { return after[name] - before[name] }

	return scaleResult{
		goroutinesPerWaiter: float64(goroutines) / scaleWaiters,
		heapPerWaiter:       float64(int64(mem1.heap)-int64(mem0.heap)) / scaleWaiters,
		stackPerWaiter:      float64(int64(mem1.stack)-int64(mem0.stack)) / scaleWaiters,
		notifyingDeletes:    delta("zk_cnt_node_deleted_watch_count"),
		notifications:       delta("zk_sum_node_deleted_watch_count"),
		notifyingSignals:    delta("zk_cnt_node_created_watch_count"),
		signalNotifications: delta("zk_sum_node_created_watch_count"),
		childWatchFirings:   delta("zk_sum_node_children_watch_count"),
		drain:               drain,
		violations:          check.Violations(),
		entries:             check.Entries(),
	}
}

// scaleLabel is the pprof label key of the scale scenario's goroutines.
const scaleLabel = "lockscale"

// perfLabeledGoroutines counts the goroutines whose pprof label key is value.
func perfLabeledGoroutines(key, value string) int {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
	want := fmt.Sprintf("%q:%q", key, value)
	lines := strings.Split(buf.String(), "\n")
	total := 0
	for i := 1; i < len(lines); i++ {
		// "<count> @ <pcs>" followed by "# labels: {...}".
		labels, ok := strings.CutPrefix(lines[i], "# labels: ")
		if !ok || !strings.Contains(labels, want) {
			continue
		}
		count, _, _ := strings.Cut(lines[i-1], " @ ")
		if n, err := strconv.Atoi(count); err == nil {
			total += n
		}
	}
	return total
}

type perfMemory struct{ heap, stack uint64 }

// perfLiveMemory returns the live heap and the goroutine stacks in use, after
// a collection.
func perfLiveMemory() perfMemory {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return perfMemory{heap: ms.HeapAlloc, stack: ms.StackInuse}
}

// A thousand goroutines wait on one lock through ten clients. Each waiter
// costs its own goroutine and no other, and every release notifies exactly
// one other waiter (no herd): the holder's deletion notified the first
// waiter and the holder's own watch of its node, each waiter's deletion
// notified the next waiter and the waiter's own watch of its node, each release signal that notified anyone (all but
// the holder's, which no waiter needed) notified one, and no children watch
// fired.
func TestMutexThousandWaitersThroughTenClients(t *testing.T) {
	srv := zktest.StartServer(t)
	r := runWaiterScale(t, srv, "/scale")
	t.Logf("%d waiters through %d clients: %.3f goroutines, %.0f B heap and %.0f B stack per waiter; drained in %v; %d of %d deletions notified %d watchers, %d release signals notified %d",
		scaleWaiters, scaleClients, r.goroutinesPerWaiter, r.heapPerWaiter, r.stackPerWaiter,
		r.drain.Round(time.Millisecond), r.notifyingDeletes, scaleWaiters+1, r.notifications,
		r.notifyingSignals, r.signalNotifications)
	if r.violations != 0 || r.entries != scaleWaiters {
		t.Errorf("%d entries with %d overlaps; want %d entries, no overlap", r.entries, r.violations, scaleWaiters)
	}
	if r.goroutinesPerWaiter != 1 {
		t.Errorf("%.3f goroutines per waiter; want 1 (the waiter's own)", r.goroutinesPerWaiter)
	}
	// The server counts a watcher per connection, so a waiter's own watch
	// and its successor's, through one client, count once.
	if r.notifyingDeletes != scaleWaiters+1 || r.notifications <= scaleWaiters || r.notifications > 2*(scaleWaiters+1) {
		t.Errorf("%d deletions notified %d watchers; want all %d deletions to notify between %d and %d: the next waiter, and the deleting holder's own watch",
			r.notifyingDeletes, r.notifications, scaleWaiters+1, scaleWaiters+1, 2*(scaleWaiters+1))
	}
	if r.notifyingSignals != scaleWaiters-1 || r.signalNotifications != scaleWaiters-1 {
		t.Errorf("%d release signals notified %d watchers; want each of the %d waiters after the first notified once",
			r.notifyingSignals, r.signalNotifications, scaleWaiters)
	}
	if r.childWatchFirings != 0 {
		t.Errorf("%d children watches fired; want none", r.childWatchFirings)
	}
	if w := perfWatches(t, srv); w != 0 {
		t.Errorf("%d watches left after every waiter released; want 0", w)
	}
}

// BenchmarkMutexThousandWaiters drains a queue of a thousand waiters (ten
// clients) per iteration and reports what each waiter cost while waiting and
// how many watchers each release notified.
func BenchmarkMutexThousandWaiters(b *testing.B) {
	srv := zktest.StartServer(b)
	b.ResetTimer()
	var r scaleResult
	for i := range b.N {
		r = runWaiterScale(b, srv, fmt.Sprintf("/scale-bench/%d", i))
	}
	b.ReportMetric(r.goroutinesPerWaiter, "goroutines/waiter")
	b.ReportMetric(r.heapPerWaiter, "heap-B/waiter")
	b.ReportMetric(r.stackPerWaiter, "stack-B/waiter")
	b.ReportMetric(float64(r.notifications)/float64(r.notifyingDeletes), "watchers/release")
	b.ReportMetric(float64(r.drain.Microseconds())/scaleWaiters, "µs/hand-off")
}
