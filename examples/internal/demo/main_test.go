package demo_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demo"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestMain starts one ZooKeeper for the package, whose address the quick
// start example reads from ZK_CONNECT as a program would, and checks for
// leaked goroutines once everything is closed.
func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	srv, err := zktest.NewServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start ZooKeeper for the demo tests:", err)
		return 1
	}
	os.Setenv(demo.EnvConnect, srv.ConnectString())
	code := m.Run()
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close ZooKeeper:", err)
		code = 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	return code
}
