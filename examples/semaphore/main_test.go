package main

import (
	"context"
	"io"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demo"
	"github.com/zkcurator/zkcurator/examples/internal/demotest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the demo with small counts against a real ZooKeeper: run
// fails (and the program would exit with status 1) if the demo's own check
// of its invariant fails.
func TestRun(t *testing.T) {
	demotest.Run(t, func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, demo.SemaphoreConfig{Leases: 2, Requests: 6, Servers: 2, Work: 10 * time.Millisecond})
	}, "6 requests served", "OK: never more than 2 requests in checkout")
}
