// Command lockbench measures an inter-process mutex under load and checks
// that it excludes: each of -clients sessions acquires and releases one lock
// -n times (after -warmup unmeasured cycles), incrementing an in-process
// counter inside every critical section.
//
// It runs zkcurator's InterProcessMutex (-impl zkcurator, fair or unfair
// driver), go-zookeeper's own zk.Lock (-impl gozk) or the hand-off floor
// (-impl floor: a queue whose waiter holds on its predecessor's deletion
// with no further request, the bound of any ZooKeeper lock; floor.go) with
// the same workload,
// against the ensemble named by -connect or, when it is empty, an embedded
// ZooKeeper started for the run. It prints exactly one line on stdout:
//
//	RESULT impl=zkcurator clients=16 iterations=500 ops=8000 secs=2.512 ops_s=3184.7 acq_p50_ms=4.201 acq_p99_ms=9.877 cycle_p50_ms=4.912 cycle_p99_ms=10.554 handoff_p50_ms=3.310 violations=0 counter_ok=true errors=0
//
// handoff_p50_ms is the median time from one holder's release call to the
// next holder's acquire returning. When they are measured, the line ends with reqs_per_op and notifs_per_op
// (the requests and watch notifications per cycle through the -rtt proxy,
// pings left out), server_cpu_ms_per_op (the CPU time per cycle of the
// server process -server-pid, or of the embedded server) and
// client_cpu_ms_per_op (this process's, its clients' and proxy's). With
// -trace-handoffs it follows each hand-off between two clients through the
// proxy (trace.go) and adds where its time went, as medians:
// handoff_out_ms (the release call to the releasing request reaching the
// server), handoff_server_ms (to the server sending the next holder its
// notification) and handoff_back_ms (to that holder's acquire returning),
// and, as means, handoff_reqs_ahead (other requests in the server when the
// releasing one arrived) and handoff_reqs_after_notif (requests the next
// holder sent after its notification).
//
// Progress and diagnostics go to stderr. The exit status is 1 when the lock
// failed to exclude (violations > 0 or a counter mismatch) or an operation
// failed, and 2 for bad flags.
//
// With -serve it only starts an embedded ZooKeeper, prints
// "CONNECT <host:port>" and "PID <n>" on stdout and serves until
// interrupted, so that
// several runs (scripts/bench.sh) can share one server.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
