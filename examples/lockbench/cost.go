package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// costProbe measures what the measured phase costs the network and the
// server: the requests and watch notifications that cross the -rtt proxy,
// and the ZooKeeper server's CPU time when its process is known.
type costProbe struct {
	proxy  *zktest.Proxy // nil without -rtt
	pid    int           // 0: unknown
	tracer *tracer       // with -trace-handoffs

	cpuBefore time.Duration
	cpuOK     bool
	ownBefore time.Duration // this process's CPU time: the clients (and the proxy)
	ownOK     bool
}

// cost is what a phase cost, in total or per cycle; a negative field was
// not measured.
type cost struct {
	requests, notifications float64
	serverCPU               time.Duration
	clientCPU               time.Duration // the benchmark process's, with its clients and proxy
}

func (p *costProbe) begin(log io.Writer) {
	if p.proxy != nil {
		p.proxy.ResetCounts()
		if p.tracer != nil {
			p.proxy.Trace(p.tracer.record)
		}
	}
	if p.pid != 0 {
		var err error
		p.cpuBefore, err = zktest.ProcessCPUTime(p.pid)
		if p.cpuOK = err == nil; err != nil {
			fmt.Fprintln(log, "lockbench: no server CPU time:", err)
		}
	}
	var err error
	p.ownBefore, err = zktest.ProcessCPUTime(os.Getpid())
	p.ownOK = err == nil
}

func (p *costProbe) end(log io.Writer) cost {
	c := cost{requests: -1, notifications: -1, serverCPU: -1, clientCPU: -1}
	if p.proxy != nil {
		p.proxy.Trace(nil)
		c.requests = float64(p.proxy.RequestTotal())
		c.notifications = float64(p.proxy.NotificationCount())
	}
	if p.cpuOK {
		after, err := zktest.ProcessCPUTime(p.pid)
		if err != nil {
			fmt.Fprintln(log, "lockbench: no server CPU time:", err)
		} else {
			c.serverCPU = after - p.cpuBefore
		}
	}
	if p.ownOK {
		if after, err := zktest.ProcessCPUTime(os.Getpid()); err == nil {
			c.clientCPU = after - p.ownBefore
		}
	}
	return c
}

// trace splits the hand-offs by the frames traced during the phase; empty
// without -trace-handoffs.
func (p *costProbe) trace(hs []handoff, log io.Writer) trace {
	if p.tracer == nil {
		return trace{}
	}
	if p.tracer.dropped > 0 {
		fmt.Fprintf(log, "lockbench: the trace kept the first %d frames and dropped %d\n", len(p.tracer.frames), p.tracer.dropped)
	}
	tr := p.tracer.analyze(hs)
	fmt.Fprintf(log, "lockbench: followed %d of %d hand-offs through the proxy\n", tr.n, len(hs))
	return tr
}

// perCycle divides the measured fields by cycles.
func (c cost) perCycle(cycles int) cost {
	if cycles <= 0 {
		return cost{requests: -1, notifications: -1, serverCPU: -1, clientCPU: -1}
	}
	n := float64(cycles)
	if c.requests >= 0 {
		c.requests /= n
		c.notifications /= n
	}
	if c.serverCPU >= 0 {
		c.serverCPU = time.Duration(float64(c.serverCPU) / n)
	}
	if c.clientCPU >= 0 {
		c.clientCPU = time.Duration(float64(c.clientCPU) / n)
	}
	return c
}

// String renders the measured fields for the RESULT line, each with a
// leading space: reqs_per_op and notifs_per_op (with -rtt), server_cpu_ms_per_op
// and client_cpu_ms_per_op.
func (c cost) String() string {
	var s string
	if c.requests >= 0 {
		s += fmt.Sprintf(" reqs_per_op=%.2f notifs_per_op=%.2f", c.requests, c.notifications)
	}
	if c.serverCPU >= 0 {
		s += fmt.Sprintf(" server_cpu_ms_per_op=%.3f", ms(c.serverCPU))
	}
	if c.clientCPU >= 0 {
		s += fmt.Sprintf(" client_cpu_ms_per_op=%.3f", ms(c.clientCPU))
	}
	return s
}
