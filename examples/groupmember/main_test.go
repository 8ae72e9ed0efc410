package main

import (
	"context"
	"io"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demotest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the demo against a real ZooKeeper: run fails if a live
// member's view does not settle on the live members.
func TestRun(t *testing.T) {
	demotest.Run(t, func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out)
	}, "member-3's process dies", "member-1 sees member-1=host-1:8080 member-2=host-2:8080", "OK: ")
}
