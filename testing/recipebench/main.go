// Command recipebench measures zkcurator's recipes beside Apache Curator
// 5.4's, against one ZooKeeper in one run, and prints a Markdown table per
// recipe: Curator's median, zkcurator's, and their ratio.
//
//   - DistributedAtomicLong: increments per second with 1 and 8 contending
//     sessions, both optimistic with the same retry policy (10 retries) and
//     promoted to a lock with the same settings, and the share of increments
//     that took the promoted lock; and with 8 sessions and 1 optimistic
//     retry, where most increments take it.
//   - LeaderLatch and LeaderSelector, 4 participants: the gap from the
//     leader's Close to the next leader's term; and from the moment the
//     leader's connection is cut (every participant connects through its own
//     zktest.Proxy, and the leader's is paused) to the next term, which is
//     the session timeout plus the rest (that rest is negative when the
//     session's last ping came before the cut: see handOff).
//   - InterProcessSemaphoreV2: acquire and return cycles per second, 4
//     leases and 16 sessions.
//   - DistributedQueue: puts per second with 1 and 4 producers, each
//     putting its share one after the other, then takes per second with as
//     many consumers in lock path mode, from their start until the last item
//     reached one (Curator's puts synchronous too: putInBackground(false)).
//   - TreeCache and CuratorCache, over trees of about 10,000 and 100,000
//     nodes: the initial load's time and the heap per cached node (after a
//     full collection, cache loaded and alive, less the same before; on
//     both sides), and the change events per second a loaded cache follows
//     while one writer sets the data of 5,000 distinct leaves as fast as it
//     can (the same writer, in this process, for both sides).
//
// Curator runs in a helper JVM (java/CuratorBench.java, compiled at start
// against Debian's jars in /usr/share/java); zkcurator runs in this process.
// Each configuration runs once on each side to warm up (discarded), then
// -repeat times, alternating which side goes first. Every client is a
// session of its own, connected before the timed part.
//
// Usage:
//
//	recipebench [-connect host:port] [-repeat 3] [-only atomic,latch,latch-kill,selector,selector-kill,semaphore,queue,tree,curator-cache,curator-cache-oneshot]
//
// and flags for every size (recipebench -h lists them); -cpuprofile and
// -memprofile profile zkcurator's side.
//
// Without -connect it starts an embedded ZooKeeper (testing/zktest). Progress
// goes to stderr, the tables to stdout. scripts/bench.sh (make bench) runs it.
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
