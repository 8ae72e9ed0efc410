package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// run is the whole program: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintln(stderr, "lockbench:", err)
		return 2
	case cfg.serve:
		return serve(ctx, stdout, stderr)
	}

	connect := cfg.connect
	if connect == "" {
		srv, err := zktest.NewServer()
		if err != nil {
			fmt.Fprintln(stderr, "lockbench: start an embedded ZooKeeper:", err)
			return 1
		}
		defer srv.Close()
		connect = srv.ConnectString()
		if cfg.serverPID == 0 {
			cfg.serverPID = srv.PID()
		}
		fmt.Fprintln(stderr, "lockbench: embedded ZooKeeper at", connect)
	}

	probe := costProbe{pid: cfg.serverPID}
	if cfg.rtt > 0 {
		p, err := zktest.NewProxy(connect)
		if err != nil {
			fmt.Fprintln(stderr, "lockbench:", err)
			return 1
		}
		defer p.Close()
		p.SetLatency(cfg.rtt / 2)
		probe.proxy = p
		if cfg.traceHandoffs {
			probe.tracer = &tracer{latency: cfg.rtt / 2}
		}
		connect = p.Addr()
		fmt.Fprintf(stderr, "lockbench: every session through a proxy at %s adding %v each way\n", connect, cfg.rtt/2)
	}

	res, err := bench(ctx, cfg, connect, &probe, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "lockbench:", err)
		return 1
	}
	fmt.Fprintln(stdout, res)
	if !res.ok() {
		return 1
	}
	return 0
}

// serve runs an embedded ZooKeeper until ctx ends, after printing its
// address as "CONNECT <host:port>" and its process id as "PID <n>" on stdout.
func serve(ctx context.Context, stdout, stderr io.Writer) int {
	srv, err := zktest.NewServer()
	if err != nil {
		fmt.Fprintln(stderr, "lockbench: start an embedded ZooKeeper:", err)
		return 1
	}
	fmt.Fprintln(stdout, "CONNECT", srv.ConnectString())
	fmt.Fprintln(stdout, "PID", srv.PID())
	fmt.Fprintln(stderr, "lockbench: serving ZooKeeper at", srv.ConnectString(), "until interrupted")
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		fmt.Fprintln(stderr, "lockbench: stop ZooKeeper:", err)
		return 1
	}
	return 0
}
