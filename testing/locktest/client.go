package locktest

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestRetryPolicy is a retry policy suited to tests against a local server:
// quick retries, bounded in count (zkclient.TestRetryPolicy).
var TestRetryPolicy = zkclient.TestRetryPolicy

// NewClient starts a framework.Client on connect with TestRetryPolicy and a
// 2 s session timeout (overridable through opts), as zkclient.New does.
func NewClient(tb testing.TB, connect string, opts ...framework.Option) *framework.Client {
	tb.Helper()
	return zkclient.New(tb, connect, opts...)
}

// NewClientWithPolicy starts a framework.Client on connect with policy and
// opts alone, waits until it is connected and closes it when the test ends,
// as zkclient.NewWithPolicy does.
func NewClientWithPolicy(tb testing.TB, connect string, policy retry.Policy, opts ...framework.Option) *framework.Client {
	tb.Helper()
	return zkclient.NewWithPolicy(tb, connect, policy, opts...)
}

// Eventually polls cond until it holds or timeout passes, and fails the test
// with msg if it never does, as zktest.Eventually does.
func Eventually(tb testing.TB, timeout time.Duration, msg string, cond func() bool) {
	tb.Helper()
	zktest.Eventually(tb, timeout, msg, cond)
}
