package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// config is what the flags ask for.
type config struct {
	connect        string
	repeat         int
	warmup         int
	only           []string
	sessionTimeout time.Duration
	atomicOps      int
	atomic         [][2]int // clients, optimistic retries
	handoffs       int
	killHandoffs   int
	participants   int
	semLeases      int
	semClients     int
	semOps         int
	queueClients   []int // producers (and as many consumers) of each queue configuration
	queueItems     int
	cacheNodes     []int // the trees' sizes
	treeChildren   int
	burstWrites    int
	cpuProfile     string
	memProfile     string
}

// groups are the values of -only, in the order the benches run.
var groups = []string{"atomic", "latch", "latch-kill", "selector", "selector-kill", "semaphore", "queue", "tree", "curator-cache", "curator-cache-oneshot"}

func parse(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("recipebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.connect, "connect", "", "ZooKeeper address (empty: start an embedded one)")
	fs.IntVar(&cfg.repeat, "repeat", 3, "measured runs of each configuration and side; the tables show medians")
	fs.IntVar(&cfg.warmup, "warmup", 1, "discarded runs of each configuration and side before the measured ones")
	only := fs.String("only", strings.Join(groups, ","), "the benches to run, of "+strings.Join(groups, ","))
	fs.DurationVar(&cfg.sessionTimeout, "session-timeout", 4*time.Second, "every session's timeout, on both sides")
	fs.IntVar(&cfg.atomicOps, "atomic-ops", 2000, "increments per DistributedAtomicLong run, split among its clients")
	atomicRows := fs.String("atomic", "1:10,8:10,8:1", "DistributedAtomicLong configurations, clients:optimistic-retries")
	fs.IntVar(&cfg.participants, "participants", 4, "participants of each election")
	fs.IntVar(&cfg.handoffs, "handoffs", 10, "leader hand-offs by Close per run")
	fs.IntVar(&cfg.killHandoffs, "kill-handoffs", 3, "leader hand-offs by a cut connection per run (each takes a session timeout)")
	fs.IntVar(&cfg.semLeases, "sem-leases", 4, "InterProcessSemaphoreV2 leases")
	fs.IntVar(&cfg.semClients, "sem-clients", 16, "InterProcessSemaphoreV2 clients")
	fs.IntVar(&cfg.semOps, "sem-ops", 1600, "InterProcessSemaphoreV2 cycles per run, split among its clients")
	queueRows := fs.String("queue", "1,4", "DistributedQueue configurations: producers (and as many consumers) of each")
	fs.IntVar(&cfg.queueItems, "queue-items", 1000, "DistributedQueue items per run, split among its producers")
	cacheNodes := fs.String("cache-nodes", "10000,100000", "the sizes of the trees the caches load, about that many nodes each")
	fs.IntVar(&cfg.treeChildren, "tree-children", 99, "the caches' trees: leaves of each child of the root")
	fs.IntVar(&cfg.burstWrites, "burst-writes", 5000, "writes of a cache's write burst, each to a leaf of its own")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write this process's CPU profile (zkcurator's side) to this file")
	fs.StringVar(&cfg.memProfile, "memprofile", "", "write the heap profile, with zkcurator's last loaded cache alive, to this file")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, g := range strings.Split(*only, ",") {
		if !slices.Contains(groups, g) {
			return cfg, fmt.Errorf("-only: unknown bench %q (want some of %s)", g, strings.Join(groups, ","))
		}
		cfg.only = append(cfg.only, g)
	}
	for _, r := range strings.Split(*atomicRows, ",") {
		var c, n int
		if _, err := fmt.Sscanf(r, "%d:%d", &c, &n); err != nil || c < 1 || n < 0 || n > 29 {
			return cfg, fmt.Errorf("-atomic: %q is not clients:retries (clients at least 1, retries 0 to 29)", r)
		}
		cfg.atomic = append(cfg.atomic, [2]int{c, n})
	}
	for _, v := range strings.Split(*queueRows, ",") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-queue: %q is not a positive count of producers", v)
		}
		cfg.queueClients = append(cfg.queueClients, n)
	}
	for _, v := range strings.Split(*cacheNodes, ",") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 {
			return cfg, fmt.Errorf("-cache-nodes: %q is not a count of nodes of at least 2", v)
		}
		cfg.cacheNodes = append(cfg.cacheNodes, n)
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"repeat", cfg.repeat}, {"atomic-ops", cfg.atomicOps}, {"participants", cfg.participants}, {"handoffs", cfg.handoffs},
		{"kill-handoffs", cfg.killHandoffs}, {"sem-leases", cfg.semLeases}, {"sem-clients", cfg.semClients}, {"sem-ops", cfg.semOps}, {"queue-items", cfg.queueItems},
		{"tree-children", cfg.treeChildren}, {"burst-writes", cfg.burstWrites}} {
		if v.n < 1 {
			return cfg, fmt.Errorf("-%s: %d is not a positive count", v.name, v.n)
		}
	}
	if cfg.warmup < 0 {
		return cfg, fmt.Errorf("-warmup: %d is negative", cfg.warmup)
	}
	if cfg.participants < 2 {
		return cfg, fmt.Errorf("-participants: %d, need at least 2 for a hand-off", cfg.participants)
	}
	if cfg.treeChildren > maxChildren {
		return cfg, fmt.Errorf("-tree-children: %d is above %d (a parent and its leaves are one transaction)", cfg.treeChildren, maxChildren)
	}
	for _, n := range cfg.cacheNodes {
		if s := shapeFor(n, cfg.treeChildren); s.leaves() < cfg.burstWrites {
			return cfg, fmt.Errorf("-burst-writes: %d is more than the %d leaves of the tree of %d nodes", cfg.burstWrites, s.leaves(), s.nodes())
		}
	}
	if cfg.sessionTimeout < time.Second {
		return cfg, fmt.Errorf("-session-timeout: %v is below 1s", cfg.sessionTimeout)
	}
	return cfg, nil
}

// benches returns the configured benches of the groups asked for, in order.
func (cfg config) benches() []bench {
	var out []bench
	t := &trees{} // the caches' trees, shared by their benches
	for _, g := range cfg.only {
		switch g {
		case "atomic":
			for _, a := range cfg.atomic {
				out = append(out, atomicBench(a[0], a[1], cfg.atomicOps))
			}
		case "latch", "selector":
			out = append(out, electionBench(g, cfg.participants, cfg.handoffs, false))
		case "latch-kill", "selector-kill":
			out = append(out, electionBench(strings.TrimSuffix(g, "-kill"), cfg.participants, cfg.killHandoffs, true))
		case "semaphore":
			out = append(out, semaphoreBench(cfg.semLeases, cfg.semClients, cfg.semOps))
		case "queue":
			for _, n := range cfg.queueClients {
				out = append(out, queueBench(n, cfg.queueItems))
			}
		case "tree", "curator-cache", "curator-cache-oneshot":
			kind := map[string]string{"tree": kindTree, "curator-cache": kindCurator, "curator-cache-oneshot": kindCuratorOneShot}[g]
			for _, n := range cfg.cacheNodes {
				out = append(out, cacheLoadBench(kind, shapeFor(n, cfg.treeChildren), t))
			}
			for _, n := range cfg.cacheNodes {
				out = append(out, cacheBurstBench(kind, shapeFor(n, cfg.treeChildren), cfg.burstWrites, t))
			}
		}
	}
	return out
}

// maxChildren bounds -tree-children: a parent and its leaves are created in
// one transaction, which must stay well within ZooKeeper's 1 MB request.
const maxChildren = 1000

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parse(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			report(stderr, err)
		}
		return 2
	}
	if cfg.connect == "" {
		srv, err := zktest.NewServer()
		if err != nil {
			fmt.Fprintln(stderr, "recipebench: start an embedded ZooKeeper:", err)
			return 1
		}
		defer srv.Close()
		cfg.connect = srv.ConnectString()
		fmt.Fprintln(stderr, "recipebench: embedded ZooKeeper at", cfg.connect)
	}
	if cfg.memProfile != "" {
		sampleEveryAllocation()
	}
	stopProfile, err := startCPUProfile(cfg.cpuProfile)
	if err != nil {
		report(stderr, err)
		return 1
	}
	rows, err := measureAll(ctx, cfg, stderr)
	stopProfile()
	if err != nil {
		report(stderr, err)
		return 1
	}
	writeReport(ctx, stdout, cfg, rows)
	return 0
}

// report prints err on stderr behind the program's name, once: most errors
// already begin with it.
func report(stderr io.Writer, err error) {
	msg := err.Error()
	if !strings.HasPrefix(msg, "recipebench: ") {
		msg = "recipebench: " + msg
	}
	fmt.Fprintln(stderr, msg)
}

// measureAll starts the Curator helper and a checking client, and measures
// every bench.
func measureAll(ctx context.Context, cfg config, log io.Writer) ([]row, error) {
	cur, err := startCurator(ctx, cfg.sessionTimeout)
	if err != nil {
		return nil, err
	}
	defer cur.close()
	client, err := connect(ctx, cfg.connect, cfg.sessionTimeout)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	// A root of its own, so that runs against one server never meet the
	// counters or trees of earlier runs.
	root := fmt.Sprintf("/recipebench/%d", time.Now().UnixNano())
	e := &env{connect: cfg.connect, root: root, curator: cur, client: client, sessionTimeout: cfg.sessionTimeout, log: log, memProfile: cfg.memProfile}
	var rows []row
	for _, b := range cfg.benches() {
		res, err := measure(ctx, e, b, cfg.warmup, cfg.repeat)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row{b: b, res: res})
	}
	return rows, nil
}
