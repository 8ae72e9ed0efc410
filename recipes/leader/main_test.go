package leader_test

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// shared is one ZooKeeper server for the tests that neither stop nor
// restart theirs; it starts on first use and stops after the last test.
// Such tests keep to paths of their own.
var shared struct {
	once sync.Once
	srv  *zktest.Server
	err  error
}

// sharedServer returns the package's shared server, starting it on first
// use; a server that cannot start fails the test.
func sharedServer(t *testing.T) *zktest.Server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = zktest.NewServer() })
	if shared.err != nil {
		t.Fatalf("cannot start ZooKeeper for the tests: %v", shared.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("shared ZooKeeper %s, last 40 log lines:\n%s", shared.srv.Addr(), shared.srv.LogTail(40))
		}
	})
	return shared.srv
}

type withSharedServer struct{ m *testing.M }

func (w withSharedServer) Run() int {
	code := w.m.Run()
	if shared.srv != nil {
		if err := shared.srv.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing the shared ZooKeeper: %v\n", err)
			return 1
		}
	}
	return code
}

// TestMain fails the run if any goroutine (ours or go-zookeeper's) outlives
// the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(withSharedServer{m}) }
