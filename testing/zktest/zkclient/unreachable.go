package zkclient

import (
	"net"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// SlowRetryPolicy retries every second, 3 times: with the default
// connection timeout, an operation on an Unreachable client that only this
// policy stopped would take about a minute, so a test tells a call that
// its own ctx bounded from one that ignored it.
var SlowRetryPolicy = retry.ExponentialBackoff{BaseSleep: time.Second, MaxSleep: time.Second, MaxRetries: 3}

// DeadAddress returns a 127.0.0.1 address where nothing listens: a port
// that was just free.
func DeadAddress(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("find a free port: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		tb.Fatalf("free %s: %v", addr, err)
	}
	return addr
}

// Unreachable starts a client of DeadAddress with policy and opts, for
// tests of what a call does when no connection can be made; it is closed
// when the test ends. It does not wait for a connection, which never comes.
func Unreachable(tb testing.TB, policy retry.Policy, opts ...framework.Option) *framework.Client {
	tb.Helper()
	addr := DeadAddress(tb)
	c, err := framework.NewClient(addr, policy, opts...)
	if err != nil {
		tb.Fatalf("framework.NewClient(%q): %v", addr, err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	if err := c.Start(); err != nil {
		tb.Fatalf("start the client of %s: %v", addr, err)
	}
	return c
}
