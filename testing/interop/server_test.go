package interop

import (
	"testing"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// startZooKeeper starts a standalone ZooKeeper for the test. Its default 200ms
// tick allows the 2s session timeouts both languages use here.
func startZooKeeper(t *testing.T) *zktest.Server {
	t.Helper()
	return zktest.StartServer(t)
}
