package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// resultKeys are the RESULT line's fields, in order.
var resultKeys = []string{
	"impl", "clients", "iterations", "ops", "secs", "ops_s",
	"acq_p50_ms", "acq_p99_ms", "cycle_p50_ms", "cycle_p99_ms", "handoff_p50_ms",
	"violations", "counter_ok", "errors",
}

// costKeys may follow resultKeys, in this order, when they were measured
// (the handoff ones with -trace-handoffs).
var costKeys = []string{
	"reqs_per_op", "notifs_per_op", "server_cpu_ms_per_op", "client_cpu_ms_per_op",
	"traced_handoffs", "handoff_out_ms", "handoff_server_ms", "handoff_back_ms",
	"handoff_reqs_ahead", "handoff_reqs_after_notif",
}

// parseResult checks that out is exactly one RESULT line with every field,
// in order, and returns the fields.
func parseResult(t *testing.T, out string) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "RESULT ") {
		t.Fatalf("stdout = %q, want exactly one RESULT line", out)
	}
	fields := strings.Fields(lines[0])[1:]
	if len(fields) < len(resultKeys) {
		t.Fatalf("RESULT has %d fields, want at least %d: %q", len(fields), len(resultKeys), lines[0])
	}
	kv := make(map[string]string, len(fields))
	for i, f := range fields[:len(resultKeys)] {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k != resultKeys[i] {
			t.Fatalf("field %d is %q, want %s=<value>: %q", i, f, resultKeys[i], lines[0])
		}
		kv[k] = v
	}
	next := 0
	for _, f := range fields[len(resultKeys):] {
		k, v, ok := strings.Cut(f, "=")
		for next < len(costKeys) && costKeys[next] != k {
			next++
		}
		if !ok || next == len(costKeys) {
			t.Fatalf("field %q is not one of %v in that order: %q", f, costKeys, lines[0])
		}
		kv[k] = v
	}
	return kv
}

func num(t *testing.T, kv map[string]string, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(kv[key], 64)
	if err != nil {
		t.Fatalf("%s=%q is not a number", key, kv[key])
	}
	return v
}

// runLockbench runs the program with args and returns its status and output.
func runLockbench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// checkRun runs a small workload and checks its RESULT line.
func checkRun(t *testing.T, impl string, clients, n int, args ...string) {
	t.Helper()
	args = append(args, "-impl", impl, "-clients", strconv.Itoa(clients), "-n", strconv.Itoa(n), "-warmup", "2")
	code, out, errOut := runLockbench(t, args...)
	if code != 0 {
		t.Fatalf("lockbench %v exited %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	kv := parseResult(t, out)
	want := map[string]string{
		"impl": impl, "clients": strconv.Itoa(clients), "iterations": strconv.Itoa(n),
		"ops": strconv.Itoa(clients * n), "violations": "0", "counter_ok": "true", "errors": "0",
	}
	for k, v := range want {
		if kv[k] != v {
			t.Errorf("%s=%s, want %s", k, kv[k], v)
		}
	}
	secs, opsS := num(t, kv, "secs"), num(t, kv, "ops_s")
	if secs <= 0 || opsS <= 0 {
		t.Errorf("secs=%v ops_s=%v, want both positive", secs, opsS)
	} else if lo, hi, ok := rateMatches(float64(clients*n), secs, opsS); !ok {
		t.Errorf("ops_s=%v, want ops/secs, within [%v, %v]", opsS, lo, hi)
	}
	acq50, acq99 := num(t, kv, "acq_p50_ms"), num(t, kv, "acq_p99_ms")
	cyc50, cyc99 := num(t, kv, "cycle_p50_ms"), num(t, kv, "cycle_p99_ms")
	// Every cycle's acquisition is part of it, so each acquisition
	// percentile is at most the cycle percentile.
	if !(0 < acq50 && acq50 <= acq99 && acq50 <= cyc50 && cyc50 <= cyc99 && acq99 <= cyc99) {
		t.Errorf("percentiles acq p50 %v p99 %v, cycle p50 %v p99 %v: want 0 < acq ≤ cycle and p50 ≤ p99", acq50, acq99, cyc50, cyc99)
	}
	// Every measured cycle after a run's first has a hand-off.
	if handoff := num(t, kv, "handoff_p50_ms"); handoff <= 0 {
		t.Errorf("handoff_p50_ms=%v, want positive", handoff)
	}
}

// createPersistent creates path, a child of the root, as a persistent node.
func createPersistent(t *testing.T, connect, path string) {
	t.Helper()
	withConn(t, connect, func(conn *zk.Conn) {
		if _, err := conn.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", path, err)
		}
	})
}

// childrenOf lists path on the server at connect.
func childrenOf(t *testing.T, connect, path string) (children []string) {
	t.Helper()
	withConn(t, connect, func(conn *zk.Conn) {
		var err error
		children, _, err = conn.Children(path)
		if err != nil && err != zk.ErrNoNode {
			t.Fatalf("children of %s: %v", path, err)
		}
	})
	return children
}

// withConn runs f on a go-zookeeper connection to connect, closed after it.
func withConn(t *testing.T, connect string, f func(*zk.Conn)) {
	t.Helper()
	conn, events, err := zk.Connect([]string{connect}, 4*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		conn.Close()
		for range events {
		}
	}()
	f(conn)
}

func TestRunPrintsOneResultLineAndLeavesNoNodes(t *testing.T) {
	srv := zktest.StartServer(t)
	cases := []struct {
		name    string
		impl    string
		clients int
		args    []string
	}{
		{"zkcurator/fair/1", implCurator, 1, nil},
		{"zkcurator/fair/4", implCurator, 4, nil},
		{"zkcurator/unfair/4", implCurator, 4, []string{"-driver", driverUnfair}},
		{"gozk/1", implGozk, 1, nil},
		{"gozk/4", implGozk, 4, nil},
		{"zkcurator/rtt/4", implCurator, 4, []string{"-rtt", "2ms"}},
		{"gozk/rtt/4", implGozk, 4, []string{"-rtt", "2ms"}},
		{"floor/4", implFloor, 4, nil},
		{"floor/rtt/4", implFloor, 4, []string{"-rtt", "2ms"}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := fmt.Sprintf("/lockbench-test/%d", i)
			checkRun(t, tc.impl, tc.clients, 5, append(tc.args, "-connect", srv.ConnectString(), "-path", path)...)
			if left := childrenOf(t, srv.ConnectString(), path); len(left) != 0 {
				t.Errorf("nodes left under %s: %v", path, left)
			}
		})
	}
}

// rateMatches reports whether ops_s, as the RESULT line prints it, is ops
// divided by secs as printed, and the range it must lie in. The line rounds
// secs to milliseconds and ops_s to tenths; the tenths matter when a loaded
// machine makes a run slow.
func rateMatches(ops, secs, opsS float64) (lo, hi float64, ok bool) {
	lo, hi = ops/(secs+0.0005)-0.05, ops/max(secs-0.0005, 1e-9)+0.05
	return lo, hi, opsS >= lo*0.999 && opsS <= hi*1.001
}

// The rate check accepts every line a run of 10 or 10000 operations prints,
// slow or fast: a run of 10 operations in 0.413 s printed ops_s=24.2, which
// a check that ignored the rounding of ops_s refused.
func TestRateCheckAcceptsThePrintedRounding(t *testing.T) {
	for _, ops := range []int{10, 10000} {
		for secs := 0.05; secs < 30; secs *= 1.01 {
			line := result{impl: implCurator, clients: 1, iterations: ops, ops: ops, secs: secs,
				cost: cost{requests: -1, notifications: -1, serverCPU: -1}}.String()
			kv := parseResult(t, line+"\n")
			if lo, hi, ok := rateMatches(float64(ops), num(t, kv, "secs"), num(t, kv, "ops_s")); !ok {
				t.Fatalf("%s: ops_s outside [%v, %v]", line, lo, hi)
			}
		}
	}
}

// Uncontended, a cycle of either lock is three requests (create, list,
// delete) and no notification, counted at the -rtt proxy; the server's CPU
// time per cycle is reported when its process is named. The lock path is a
// persistent node here: a container parent may be reaped by the server
// between two cycles, and creating it again costs three more requests.
func TestCostPerCycle(t *testing.T) {
	srv := zktest.StartServer(t)
	for _, impl := range []string{implCurator, implGozk} {
		t.Run(impl, func(t *testing.T) {
			path := "/lockbench-cost-" + impl
			createPersistent(t, srv.ConnectString(), path)
			code, out, errOut := runLockbench(t, "-connect", srv.ConnectString(), "-path", path,
				"-impl", impl, "-n", "20", "-warmup", "2", "-rtt", "1ms", "-server-pid", strconv.Itoa(srv.PID()))
			if code != 0 {
				t.Fatalf("lockbench exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			kv := parseResult(t, out)
			// go-zookeeper's lock: create, list, delete. zkcurator's reads its
			// node beside the listing (the fencing token, in the same round
			// trip) and watches it while it holds, so that Lost closes when
			// the node is deleted: one more request and the watch's
			// notification when its own release deletes the node.
			reqs, notifs := "3.00", "0.00"
			if impl == implCurator {
				reqs, notifs = "4.00", "1.00"
			}
			if kv["reqs_per_op"] != reqs || kv["notifs_per_op"] != notifs {
				t.Errorf("reqs_per_op=%s notifs_per_op=%s, want %s and %s", kv["reqs_per_op"], kv["notifs_per_op"], reqs, notifs)
			}
			for _, key := range []string{"server_cpu_ms_per_op", "client_cpu_ms_per_op"} {
				if cpu := num(t, kv, key); cpu < 0 {
					t.Errorf("%s=%v, want at least 0", key, cpu)
				}
			}
		})
	}
	code, out, _ := runLockbench(t, "-connect", srv.ConnectString(), "-n", "2", "-warmup", "0")
	if kv := parseResult(t, out); code != 0 || kv["reqs_per_op"] != "" || kv["server_cpu_ms_per_op"] != "" {
		t.Errorf("without -rtt or -server-pid: status %d, fields %v; want neither requests nor server CPU", code, kv)
	}
}

// -trace-handoffs follows hand-offs between clients through the proxy (those
// where the next holder was waiting, so that a notification handed over):
// each way to and from the server takes at least the emulated one-way
// delay, and the next holder's requests after its notification tell the
// locks apart: go-zookeeper's lists the children again, zkcurator's and the
// floor's hold on the event.
func TestTraceSplitsEachHandoff(t *testing.T) {
	srv := zktest.StartServer(t)
	const oneWay = 2 * time.Millisecond
	for _, tc := range []struct {
		impl      string
		listsMore bool
	}{{implCurator, false}, {implGozk, true}, {implFloor, false}} {
		t.Run(tc.impl, func(t *testing.T) {
			code, out, errOut := runLockbench(t, "-connect", srv.ConnectString(), "-path", "/lockbench-trace-"+tc.impl,
				"-impl", tc.impl, "-clients", "3", "-n", "20", "-warmup", "2", "-rtt", (2 * oneWay).String(), "-trace-handoffs")
			if code != 0 {
				t.Fatalf("lockbench exited %d\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			kv := parseResult(t, out)
			// Of 60 cycles among 3 clients, some hand over to a waiter.
			if n := num(t, kv, "traced_handoffs"); n < 3 || n > 60 {
				t.Errorf("traced_handoffs=%v, want between 3 and 60", n)
			}
			outMs, server, back := num(t, kv, "handoff_out_ms"), num(t, kv, "handoff_server_ms"), num(t, kv, "handoff_back_ms")
			if lat := ms(oneWay); outMs < lat || back < lat || server <= 0 {
				t.Errorf("out %v ms, server %v ms, back %v ms: want each way at least %v ms and a positive server time", outMs, server, back, lat)
			}
			after := num(t, kv, "handoff_reqs_after_notif")
			if tc.listsMore != (after >= 0.5) {
				t.Errorf("handoff_reqs_after_notif=%v; want about %v", after, map[bool]int{true: 1, false: 0}[tc.listsMore])
			}
		})
	}
}

// A run that outlives -timeout stops: clients blocked in Acquire (or in
// go-zookeeper's Lock, which takes no context) give up, and the result
// reports them as errors with exit status 1.
func TestRunStopsAtItsTimeout(t *testing.T) {
	srv := zktest.StartServer(t)
	for _, impl := range []string{implCurator, implGozk} {
		t.Run(impl, func(t *testing.T) {
			start := time.Now()
			code, out, errOut := runLockbench(t, "-connect", srv.ConnectString(), "-impl", impl,
				"-path", "/timeout-test/"+impl, "-clients", "3", "-n", "10000000", "-warmup", "0", "-timeout", "3s")
			took := time.Since(start)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, out, errOut)
			}
			kv := parseResult(t, out)
			if kv["errors"] != "3" || kv["violations"] != "0" || kv["counter_ok"] != "true" {
				t.Errorf("errors=%s violations=%s counter_ok=%s; want 3 failed clients and no overlap", kv["errors"], kv["violations"], kv["counter_ok"])
			}
			if took > 30*time.Second {
				t.Errorf("the run took %v with -timeout 3s", took)
			}
		})
	}
}

func TestRunStartsAnEmbeddedServerWithoutConnect(t *testing.T) {
	checkRun(t, implCurator, 2, 3)
}

func TestServeSharesOneServerUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var errOut bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"-serve"}, pw, &errOut)
		pw.Close()
		exited <- code
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, pr)
	}()
	var addr string
	select {
	case line, ok := <-lines:
		var found bool
		addr, found = strings.CutPrefix(line, "CONNECT ")
		if !ok || !found {
			t.Fatalf("first stdout line %q, want CONNECT <host:port>", line)
		}
	case <-time.After(time.Minute):
		t.Fatal("no CONNECT line within a minute")
	}

	for _, impl := range []string{implCurator, implGozk} {
		checkRun(t, impl, 2, 3, "-connect", addr, "-path", "/serve-test/"+impl)
	}

	cancel()
	select {
	case code := <-exited:
		if code != 0 {
			t.Fatalf("-serve exited %d after the interrupt; stderr: %s", code, errOut.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("-serve still running a minute after the interrupt")
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("ZooKeeper at %s still accepts connections after -serve returned", addr)
	}
}

func TestBadFlagsExitTwoNamingTheValue(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-impl", "etcd"}, `"etcd"`},
		{[]string{"-driver", "random"}, `"random"`},
		{[]string{"-impl", "gozk", "-driver", "unfair"}, `"unfair"`},
		{[]string{"-impl", "floor", "-driver", "unfair"}, `"unfair"`},
		{[]string{"-clients", "0"}, "-clients 0"},
		{[]string{"-n", "-3"}, "-n -3"},
		{[]string{"-warmup", "-1"}, "-warmup -1"},
		{[]string{"-path", "locks/x"}, `"locks/x"`},
		{[]string{"-path", "/"}, `"/"`},
		{[]string{"-session-timeout", "0s"}, "-session-timeout 0s"},
		{[]string{"-serve", "-connect", "127.0.0.1:2181"}, `"127.0.0.1:2181"`},
		{[]string{"-rtt", "-1ms"}, "-rtt -1ms"},
		{[]string{"-server-pid", "-3"}, "-server-pid -3"},
		{[]string{"-trace-handoffs"}, "-trace-handoffs"},
		{[]string{"-rtt", "1ms", "-connect", "127.0.0.1:2181,127.0.0.1:2182"}, `"127.0.0.1:2181,127.0.0.1:2182"`},
		{[]string{"extra"}, `"extra"`},
		{[]string{"-clients", "many"}, `"many"`},
	}
	for _, tc := range cases {
		code, out, errOut := runLockbench(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("lockbench %v: exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr naming %s",
				tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestSectionCountsOverlaps(t *testing.T) {
	var sec section
	sec.enter()
	if v := sec.violations.Load(); v != 0 {
		t.Fatalf("violations after a lone entry = %d, want 0", v)
	}
	sec.inside.Add(1) // another holder is inside
	sec.enter()
	if v := sec.violations.Load(); v != 1 {
		t.Errorf("violations after an overlapping entry = %d, want 1", v)
	}
	if c := sec.counter.Load(); c != 2 {
		t.Errorf("counter = %d, want 2", c)
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	var samples []time.Duration
	for i := 100; i >= 1; i-- {
		samples = append(samples, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    int
		want time.Duration
	}{{50, 50 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}, {1, time.Millisecond}} {
		if got := percentile(samples, tc.p); got != tc.want {
			t.Errorf("p%d of 1..100 ms = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("p99 of one sample = %v, want it", got)
	}
	if got := percentile(nil, 99); got != 0 {
		t.Errorf("p99 of no samples = %v, want 0", got)
	}
}

func TestResultOK(t *testing.T) {
	good := result{counterOK: true}
	for _, tc := range []struct {
		r    result
		want bool
	}{
		{good, true},
		{result{counterOK: false}, false},
		{result{counterOK: true, violations: 1}, false},
		{result{counterOK: true, errors: 1}, false},
	} {
		if got := tc.r.ok(); got != tc.want {
			t.Errorf("%+v.ok() = %t, want %t", tc.r, got, tc.want)
		}
	}
}
