package leader_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// shared is one ZooKeeper server for the tests that neither stop nor
// restart theirs; such tests keep to paths of their own.
var shared zktest.Shared

// TestMain fails the run if any goroutine (ours or go-zookeeper's) outlives
// the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(shared.Main(m)) }
