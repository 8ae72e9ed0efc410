package watch_test

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

var shared struct {
	once sync.Once
	srv  *zktest.Server
	err  error
}

func sharedServer(t testing.TB) *zktest.Server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = zktest.NewServer() })
	if shared.err != nil {
		t.Fatalf("cannot start ZooKeeper: %v", shared.err)
	}
	return shared.srv
}

type run struct{ m *testing.M }

func (r run) Run() int {
	code := r.m.Run()
	if shared.srv != nil {
		if err := shared.srv.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	return code
}

// TestMain fails the run if a goroutine outlives the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(run{m}) }
