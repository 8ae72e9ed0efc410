package locktest

import (
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// NewClient is zkclient.New.
//
// Deprecated: use zkclient.New; locktest keeps only the lock checks.
func NewClient(tb testing.TB, connect string, opts ...framework.Option) *framework.Client {
	tb.Helper()
	return zkclient.New(tb, connect, opts...)
}
