// Package zkclient gives tests a started, connected framework.Client on a
// zktest server, closed when the test ends, and godoc examples a server and
// a client of it (NewWithServer).
//
// It is a package of its own, not part of zktest, so that zktest stays free
// of the framework: the framework's own in-package tests, and those of the
// packages under it, may start servers with zktest without an import cycle.
package zkclient

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestRetryPolicy is the retry policy of New: quick retries against a local
// server, bounded in count.
var TestRetryPolicy = retry.ExponentialBackoff{BaseSleep: 10 * time.Millisecond, MaxSleep: 250 * time.Millisecond, MaxRetries: 10}

// New starts a client on connect with TestRetryPolicy, a 2 s session
// timeout and a 5 s connection timeout (opts may override both), waits up
// to 15 s until it is connected, and closes it when the test ends.
func New(tb testing.TB, connect string, opts ...framework.Option) *framework.Client {
	tb.Helper()
	all := append([]framework.Option{
		framework.WithSessionTimeout(2 * time.Second),
		framework.WithConnectionTimeout(5 * time.Second),
	}, opts...)
	return NewWithPolicy(tb, connect, TestRetryPolicy, all...)
}

// NewWithPolicy is New with policy and opts alone: no default timeouts.
func NewWithPolicy(tb testing.TB, connect string, policy retry.Policy, opts ...framework.Option) *framework.Client {
	tb.Helper()
	c, err := framework.NewClient(connect, policy, opts...)
	if err != nil {
		tb.Fatalf("framework.NewClient(%q): %v", connect, err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	if err := c.Start(); err != nil {
		tb.Fatalf("start the client of %s: %v", connect, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		tb.Fatalf("connect to %s: %v", connect, err)
	}
	return c
}

// NewWithServer starts a real ZooKeeper on 127.0.0.1 and a client of it,
// connected within 15 s, for godoc examples, which have no testing.TB;
// stop closes both.
func NewWithServer() (client *framework.Client, stop func(), err error) {
	srv, err := zktest.NewServer()
	if err != nil {
		return nil, nil, err
	}
	client, err = framework.NewClient(srv.ConnectString(), TestRetryPolicy)
	if err == nil {
		err = client.Start()
		if err != nil {
			client.Close()
		}
	}
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	stop = func() { client.Close(); srv.Close() }
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := client.BlockUntilConnected(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("connect to %s: %w", srv.ConnectString(), err)
	}
	return client, stop, nil
}
