package locktest

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// TestRetryPolicy is a retry policy suited to tests against a local server:
// quick retries, bounded in count.
var TestRetryPolicy = retry.ExponentialBackoff{BaseSleep: 10 * time.Millisecond, MaxSleep: 250 * time.Millisecond, MaxRetries: 10}

// NewClient starts a framework.Client on connect with TestRetryPolicy and a
// 2 s session timeout (overridable through opts); see NewClientWithPolicy.
func NewClient(tb testing.TB, connect string, opts ...framework.Option) *framework.Client {
	tb.Helper()
	all := append([]framework.Option{
		framework.WithSessionTimeout(2 * time.Second),
		framework.WithConnectionTimeout(5 * time.Second),
	}, opts...)
	return NewClientWithPolicy(tb, connect, TestRetryPolicy, all...)
}

// NewClientWithPolicy starts a framework.Client on connect with policy and
// opts alone, waits until it is connected and closes it when the test ends.
func NewClientWithPolicy(tb testing.TB, connect string, policy retry.Policy, opts ...framework.Option) *framework.Client {
	tb.Helper()
	c, err := framework.NewClient(connect, policy, opts...)
	if err != nil {
		tb.Fatalf("framework.NewClient(%q): %v", connect, err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	if err := c.Start(); err != nil {
		tb.Fatalf("Start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		tb.Fatalf("BlockUntilConnected(%s): %v", connect, err)
	}
	return c
}

// Eventually polls cond every 10 ms until it holds or timeout passes, and
// fails the test with msg if it never does.
func Eventually(tb testing.TB, timeout time.Duration, msg string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v: %s", timeout, msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
