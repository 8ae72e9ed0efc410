package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// The implementations lockbench can measure.
const (
	implCurator = "zkcurator" // locks.InterProcessMutex
	implGozk    = "gozk"      // go-zookeeper's zk.Lock
	implFloor   = "floor"     // the hand-off bound (floor.go), on go-zookeeper
)

// The drivers of zkcurator's mutex.
const (
	driverFair   = "fair"
	driverUnfair = "unfair"
)

// config is what the flags ask for.
type config struct {
	connect        string
	path           string
	clients        int
	n              int
	warmup         int
	driver         string
	impl           string
	sessionTimeout time.Duration
	timeout        time.Duration
	rtt            time.Duration
	traceHandoffs  bool
	serverPID      int
	serve          bool
}

// errUsage marks a bad command line; run exits with status 2.
var errUsage = errors.New("usage")

// parseConfig reads and checks the flags; every error names the bad value.
func parseConfig(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("lockbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.connect, "connect", "", "ZooKeeper connect string; empty starts an embedded server for the run")
	fs.StringVar(&cfg.path, "path", "/lockbench", "lock path")
	fs.IntVar(&cfg.clients, "clients", 1, "concurrent clients, each with its own session and lock handle")
	fs.IntVar(&cfg.n, "n", 1000, "measured acquire/release cycles per client")
	fs.IntVar(&cfg.warmup, "warmup", 50, "unmeasured cycles per client before the measurement")
	fs.StringVar(&cfg.driver, "driver", driverFair, "zkcurator lock driver: fair or unfair")
	fs.StringVar(&cfg.impl, "impl", implCurator, "implementation: zkcurator, gozk (go-zookeeper's zk.Lock) or floor (a queue whose hand-off is one delete and its notification: the bound, not a lock)")
	fs.DurationVar(&cfg.sessionTimeout, "session-timeout", 10*time.Second, "session timeout each client asks for")
	fs.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "bound on the whole run; operations still under way then count as errors")
	fs.DurationVar(&cfg.rtt, "rtt", 0, "round-trip time to emulate: every session goes through a proxy on 127.0.0.1 that delays each direction by half of it (needs a single-server -connect)")
	fs.BoolVar(&cfg.traceHandoffs, "trace-handoffs", false, "with -rtt: follow every hand-off through the proxy and split its time into the way to the server, the server and the way back (handoff_*_ms on the RESULT line)")
	fs.IntVar(&cfg.serverPID, "server-pid", 0, "process id of the ZooKeeper server whose CPU time per cycle to report (Linux); 0: the embedded server's, else none")
	fs.BoolVar(&cfg.serve, "serve", false, "only start an embedded ZooKeeper, print \"CONNECT <host:port>\" and serve until interrupted")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if err := cfg.validate(); err != nil {
		return config{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	return cfg, nil
}

func (cfg config) validate() error {
	if cfg.serve {
		if cfg.connect != "" {
			return fmt.Errorf("-serve starts its own server; it cannot be combined with -connect %q", cfg.connect)
		}
		return nil
	}
	switch {
	case cfg.impl != implCurator && cfg.impl != implGozk && cfg.impl != implFloor:
		return fmt.Errorf("-impl %q: want %s, %s or %s", cfg.impl, implCurator, implGozk, implFloor)
	case cfg.driver != driverFair && cfg.driver != driverUnfair:
		return fmt.Errorf("-driver %q: want %s or %s", cfg.driver, driverFair, driverUnfair)
	case cfg.impl != implCurator && cfg.driver != driverFair:
		return fmt.Errorf("-driver %q: -impl %s has only the fair order", cfg.driver, cfg.impl)
	case cfg.clients < 1:
		return fmt.Errorf("-clients %d: want at least 1", cfg.clients)
	case cfg.n < 1:
		return fmt.Errorf("-n %d: want at least 1", cfg.n)
	case cfg.warmup < 0:
		return fmt.Errorf("-warmup %d: want 0 or more", cfg.warmup)
	case cfg.sessionTimeout <= 0:
		return fmt.Errorf("-session-timeout %v: want a positive duration", cfg.sessionTimeout)
	case cfg.timeout <= 0:
		return fmt.Errorf("-timeout %v: want a positive duration", cfg.timeout)
	case cfg.serverPID < 0:
		return fmt.Errorf("-server-pid %d: want a process id, or 0", cfg.serverPID)
	case cfg.rtt < 0:
		return fmt.Errorf("-rtt %v: want 0 or a positive duration", cfg.rtt)
	case cfg.traceHandoffs && cfg.rtt == 0:
		return errors.New("-trace-handoffs follows hand-offs through the -rtt proxy: give -rtt too")
	case cfg.rtt > 0 && strings.Contains(cfg.connect, ","):
		return fmt.Errorf("-rtt %v: the proxy serves one server; -connect %q names several", cfg.rtt, cfg.connect)
	case cfg.path == "/":
		return fmt.Errorf("-path %q: the lock needs a path of its own, not the root", cfg.path)
	}
	if err := framework.ValidatePath(cfg.path); err != nil {
		return fmt.Errorf("-path: %w", err)
	}
	return nil
}
