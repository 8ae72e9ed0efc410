package main

import (
	"context"
	"io"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demotest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the demo against a real ZooKeeper: run fails (and the program
// would exit with status 1) if the demo's own check of its promise fails.
func TestRun(t *testing.T) {
	demotest.Run(t, func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out)
	}, "orders-1 registers at http://127.0.0.1:8081", "orders-2's process dies", "OK: ")
}
