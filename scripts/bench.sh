#!/usr/bin/env bash
# zkcurator's InterProcessMutex against go-zookeeper's own zk.Lock and the
# hand-off floor (lockbench -impl floor: a queue whose waiter holds on its
# predecessor's deletion, the bound of any ZooKeeper lock): all three run
# examples/lockbench at 1, 4 and 16 clients against ONE embedded ZooKeeper in
# one run, interleaved, and the medians come out as Markdown tables. Then
# testing/recipebench sets zkcurator's atomic long, leader election,
# semaphore, DistributedQueue, TreeCache and CuratorCache beside Apache Curator 5.4's on the same server.
#
# Environment (all optional):
#   BENCH_OPS     measured cycles per run, split evenly among the clients (default 4000)
#   BENCH_WARMUP  warm-up cycles per run, split likewise (default 400)
#   BENCH_REPEAT  runs of each configuration; the table shows medians (default 5)
#   BENCH_CLIENTS client counts (default "1 4 16")
#   BENCH_DRIVER  zkcurator driver: fair or unfair (default fair)
#   BENCH_RTT     also run every configuration again with this round-trip time
#                 emulated by lockbench -rtt, a delaying proxy on 127.0.0.1
#                 (default 2ms; empty skips it)
#   BENCH_RTT_OPS measured cycles per run with -rtt (default 400)
#   BENCH_CURATOR_REPEAT runs of each configuration of testing/recipebench,
#                 zkcurator's other recipes beside Apache Curator 5.4 on the
#                 same server (default 3; 0 skips it)
#   BENCH_CURATOR_FLAGS  more recipebench flags, e.g. "-only atomic,semaphore"
#   GO            the go command (default go)
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
ops=${BENCH_OPS:-4000}
warmup=${BENCH_WARMUP:-400}
repeat=${BENCH_REPEAT:-5}
clients_list=${BENCH_CLIENTS:-1 4 16}
driver=${BENCH_DRIVER:-fair}
rtt=${BENCH_RTT-2ms}
rtt_ops=${BENCH_RTT_OPS:-400}

curator_repeat=${BENCH_CURATOR_REPEAT:-3}
read -r -a curator_flags <<<"${BENCH_CURATOR_FLAGS:-}"

for v in "$ops" "$warmup" "$repeat" "$rtt_ops" "$curator_repeat"; do
	[[ $v =~ ^[0-9]+$ ]] || { echo "bench.sh: not a count: $v" >&2; exit 2; }
done

tmp=$(mktemp -d)
serve_pid=
cleanup() {
	if [[ -n $serve_pid ]]; then
		kill -TERM "$serve_pid" 2>/dev/null || true
		wait "$serve_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "building examples/lockbench" >&2
"$GO" build -o "$tmp/lockbench" ./examples/lockbench
if ((curator_repeat > 0)); then
	echo "building testing/recipebench" >&2
	(cd testing/recipebench && "$GO" build -o "$tmp/recipebench" .)
fi

# One server for every run.
"$tmp/lockbench" -serve >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
connect=
for _ in $(seq 600); do # up to 60 s
	connect=$(sed -n 's/^CONNECT //p' "$tmp/serve.out")
	[[ -n $connect ]] && break
	if ! kill -0 "$serve_pid" 2>/dev/null; then
		echo "bench.sh: the embedded ZooKeeper did not start:" >&2
		cat "$tmp/serve.err" >&2
		exit 1
	fi
	sleep 0.1
done
[[ -n $connect ]] || { echo "bench.sh: no ZooKeeper address after 60 s" >&2; exit 1; }
server_pid=$(sed -n 's/^PID //p' "$tmp/serve.out")
echo "ZooKeeper at $connect (process $server_pid)" >&2

# run IMPL CLIENTS ROUND [FILE]: one lockbench run with the grid's settings
# (ops, warmup, extra flags); its RESULT line goes to FILE (default: the
# results).
run() {
	local impl=$1 clients=$2 round=$3 file=${4:-$tmp/results}
	local n=$(((ops + clients - 1) / clients)) w=$((warmup / clients))
	local out
	if ! out=$("$tmp/lockbench" -connect "$connect" -impl "$impl" -driver "$([[ $impl == zkcurator ]] && echo "$driver" || echo fair)" \
		-clients "$clients" -n "$n" -warmup "$w" -path "/lockbench/$slug/$impl-c$clients-r$round" -server-pid "${server_pid:-0}" "${extra[@]}" 2>"$tmp/run.err"); then
		echo "bench.sh: lockbench -impl $impl -clients $clients failed:" >&2
		cat "$tmp/run.err" >&2
		echo "$out" >&2
		exit 1
	fi
	echo "$out" >&2
	echo "$out" >>"$file"
}

# grid SLUG TITLE OPS WARMUP [LOCKBENCH FLAGS...]: every configuration,
# repeated, then its Markdown table under TITLE; SLUG names the lock paths.
grid() {
	slug=$1 title=$2 ops=$3 warmup=$4
	extra=("${@:5}")
	: >"$tmp/results"
	echo "== $title: $repeat runs per configuration, $ops measured cycles per run ${extra[*]}" >&2
	# The server's JIT warms up on a discarded round of each implementation.
	local impls=(zkcurator gozk floor) i
	for clients in $clients_list; do
		for impl in "${impls[@]}"; do
			run "$impl" "$clients" 0 "$tmp/discarded"
		done
	done
	for clients in $clients_list; do
		for round in $(seq "$repeat"); do
			# Rotate which implementation goes first, so that none always
			# runs on the warmer server.
			for i in 0 1 2; do
				run "${impls[(round + i) % 3]}" "$clients" "$round"
			done
		done
	done
	echo
	echo "### $title"
	echo
	table
	echo
	echo "Medians of $repeat runs each, $ops measured cycles per run. Per cycle, the server's CPU time"
	echo "(its JVM's user and system time over the measured phase, divided by cycles), through the"
	echo "-rtt proxy, the requests sent (pings left out) and watch notifications received, and the"
	echo "CPU time of the benchmark process (all its clients, and the proxy with -rtt):"
	echo
	costs
	echo
	echo "A hand-off is one holder's release call to the next holder's acquire returning (medians);"
	echo "the floor holds on its predecessor's deletion with no further request: one delete and its"
	echo "notification, what any ZooKeeper lock's hand-off costs on this server and link:"
	echo
	handoffs
	if [[ " ${extra[*]} " == *" -trace-handoffs "* ]]; then
		echo
		echo "Where a hand-off's time goes, each hand-off followed through the proxy (medians): from the"
		echo "release call to the releasing request reaching the server (out), from there to the server"
		echo "sending the next holder its watch notification (server), and from there to that holder's"
		echo "acquire returning (back); each way includes the emulated one-way delay, $rtt_half. Ahead: other"
		echo "requests in the server when the releasing one arrived; after: requests the next holder sent"
		echo "between its notification and holding (means):"
		echo
		splits
	fi
}

# splits: the hand-off split of the traced results, medians, one row per
# implementation and client count with more than one client.
splits() {
	awk "$medians_awk"'
function cell(v, fmt) { return v < 0 ? "-" : sprintf(fmt, v) }
END {
	print "| clients | lock | hand-off ms | out ms | server ms | back ms | requests ahead | requests after notification |"
	print "|---:|---|---:|---:|---:|---:|---:|---:|"
	n = split("zkcurator gozk floor", impls, " ")
	for (r = 1; r <= rows; r++) {
		c = order[r]
		for (i = 1; i <= n; i++) {
			k = impls[i] SUBSEP c
			if (median(k SUBSEP "traced_handoffs") <= 0) continue
			printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c, impls[i],
				cell(median(k SUBSEP "handoff_p50_ms"), "%.2f"), cell(median(k SUBSEP "handoff_out_ms"), "%.2f"),
				cell(median(k SUBSEP "handoff_server_ms"), "%.2f"), cell(median(k SUBSEP "handoff_back_ms"), "%.2f"),
				cell(median(k SUBSEP "handoff_reqs_ahead"), "%.2f"), cell(median(k SUBSEP "handoff_reqs_after_notif"), "%.2f")
		}
	}
}' "$tmp/results"
}

# handoffs: the hand-off table of the results against the measured floor, medians.
handoffs() {
	awk "$medians_awk"'
function cell(v, fmt) { return v <= 0 ? "-" : sprintf(fmt, v) }
END {
	print "| clients | zkcurator hand-off ms | gozk hand-off ms | floor hand-off ms | floor ops/s | zkcurator ops/s of floor | gozk ops/s of floor |"
	print "|---:|---:|---:|---:|---:|---:|---:|"
	for (r = 1; r <= rows; r++) {
		c = order[r]; z = "zkcurator" SUBSEP c; g = "gozk" SUBSEP c; fl = "floor" SUBSEP c
		fo = median(fl SUBSEP "ops_s")
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", c,
			cell(median(z SUBSEP "handoff_p50_ms"), "%.2f"), cell(median(g SUBSEP "handoff_p50_ms"), "%.2f"),
			cell(median(fl SUBSEP "handoff_p50_ms"), "%.2f"), cell(fo, "%.0f"),
			(fo > 0 ? sprintf("%.0f%%", 100 * median(z SUBSEP "ops_s") / fo) : "-"),
			(fo > 0 ? sprintf("%.0f%%", 100 * median(g SUBSEP "ops_s") / fo) : "-")
	}
}' "$tmp/results"
}

# medians_awk reads the result lines (key=value fields) into vals, per
# implementation and client count in the order first seen, and defines
# median(key) over a field's values (-1 when it has none). The tables below
# add their END blocks.
medians_awk='
function median(key,   n, i, j, t, a) {
	n = split(vals[key], a, " ")
	if (n == 0) return -1
	for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	delete f
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	k = f["impl"] SUBSEP f["clients"]
	if (!(f["clients"] in seen)) { seen[f["clients"]] = 1; order[++rows] = f["clients"] }
	for (m in f) vals[k, m] = vals[k, m] " " f[m]
}
'

# costs: the per-cycle cost table of the results, medians.
costs() {
	awk "$medians_awk"'
function cell(v, fmt) { return v < 0 ? "-" : sprintf(fmt, v) }
END {
	print "| clients | zkcurator req + notif / cycle | gozk req + notif / cycle | zkcurator server CPU ms / cycle | gozk server CPU ms / cycle | server CPU ratio | zkcurator client CPU ms / cycle | gozk client CPU ms / cycle |"
	print "|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (r = 1; r <= rows; r++) {
		c = order[r]; z = "zkcurator" SUBSEP c; g = "gozk" SUBSEP c
		zr = median(z SUBSEP "reqs_per_op"); zn = median(z SUBSEP "notifs_per_op")
		gr = median(g SUBSEP "reqs_per_op"); gn = median(g SUBSEP "notifs_per_op")
		zc = median(z SUBSEP "server_cpu_ms_per_op"); gc = median(g SUBSEP "server_cpu_ms_per_op")
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c,
			(zr < 0 ? "-" : sprintf("%.2f + %.2f", zr, zn)), (gr < 0 ? "-" : sprintf("%.2f + %.2f", gr, gn)),
			cell(zc, "%.3f"), cell(gc, "%.3f"), (zc > 0 && gc > 0 ? sprintf("%.2f", zc / gc) : "-"),
			cell(median(z SUBSEP "client_cpu_ms_per_op"), "%.3f"), cell(median(g SUBSEP "client_cpu_ms_per_op"), "%.3f")
	}
}' "$tmp/results"
}

table() {
	awk -v driver="$driver" "$medians_awk"'
END {
	printf "| clients | zkcurator (%s) ops/s | gozk ops/s | ops/s ratio | zkcurator acq p99 ms | gozk acq p99 ms | zkcurator cycle p99 ms | gozk cycle p99 ms | cycle p99 ratio |\n", driver
	print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (r = 1; r <= rows; r++) {
		c = order[r]; z = "zkcurator" SUBSEP c; g = "gozk" SUBSEP c
		zo = median(z SUBSEP "ops_s"); go = median(g SUBSEP "ops_s")
		zp = median(z SUBSEP "cycle_p99_ms"); gp = median(g SUBSEP "cycle_p99_ms")
		printf "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", c, zo, go, (go > 0 ? zo / go : 0),
			median(z SUBSEP "acq_p99_ms"), median(g SUBSEP "acq_p99_ms"), zp, gp, (gp > 0 ? zp / gp : 0)
	}
}' "$tmp/results"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
grid local "127.0.0.1, no added latency" "$ops" "$warmup"
if [[ -n $rtt ]]; then
	rtt_half="half of $rtt"
	grid rtt "every session through a proxy emulating a $rtt round trip (lockbench -rtt $rtt)" "$rtt_ops" "$((rtt_ops / 10))" -rtt "$rtt" -trace-handoffs
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo
zk_version=$(timeout 5 bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1##*:}"; printf srvr >&3; cat <&3' _ "$connect" 2>/dev/null |
	sed -n 's/^Zookeeper version: \([^-,]*\).*/\1/p' || true)
echo "One ZooKeeper ${zk_version:-server} on 127.0.0.1 for every run;"
echo "ratio = zkcurator / gozk (ops/s: higher is better; p99: lower is better). $(nproc) CPUs, load average $load_before before, $load_after after."
echo
echo "Metrics: an uncontended lock cycle with the Prometheus adapter against the default NopMetrics, interleaved"
echo "on one embedded server (metrics/prometheus BenchmarkLockCycle; prometheus/nop is the adapter's cost, and the"
echo "allocations per cycle of each show it allocates nothing per cycle):"
(cd metrics/prometheus && "$GO" test -count=1 -run '^$' -bench BenchmarkLockCycle -benchtime=2000x . | grep '^Benchmark')
echo
echo "What honouring ctx costs a request: one exists through a zkcurator Client beside the same request straight"
echo "through go-zookeeper, alternately, on one embedded server (framework BenchmarkRequestOverhead; medians, and"
echo "their ratio): a Client runs each go-zookeeper call on a goroutine of its own so that ctx can end the wait:"
"$GO" test -count=1 -run '^$' -bench BenchmarkRequestOverhead -benchtime=5000x ./framework/ | grep '^Benchmark'
echo
echo "A request of the client's own (addWatch, removeWatches, multiRead: framed on go-zookeeper's connection by"
echo "framework/internal/gozk) beside the same exists sent by go-zookeeper, alternately, on one connection"
echo "(BenchmarkOwnRequestOverhead; medians, and their ratio: at most 1 is the goal):"
"$GO" test -count=1 -run '^$' -bench BenchmarkOwnRequestOverhead -benchtime=5000x ./framework/internal/gozk/ | grep '^Benchmark'
echo
echo "TreeCache of 10,000 nodes (recipes/cache BenchmarkTreeCache, its own embedded server): load time against"
echo "plain go-zookeeper reads of the same tree one after the other (load/plain), then changes followed per second:"
"$GO" test -count=1 -run '^$' -bench BenchmarkTreeCache -benchtime=1x ./recipes/cache/ | grep '^Benchmark'
if ((curator_repeat > 0)); then
	echo
	echo "## Other recipes beside Apache Curator 5.4"
	echo
	echo "testing/recipebench on the same server: Curator in a helper JVM, zkcurator in the Go process,"
	echo "every client a session of its own, one discarded warm-up run of each side, then $curator_repeat runs"
	echo "alternating which side goes first."
	echo
	"$tmp/recipebench" -connect "$connect" -repeat "$curator_repeat" "${curator_flags[@]}"
fi
