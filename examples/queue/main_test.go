package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demotest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the demo against a real ZooKeeper: run fails if an order was
// lost or processed twice, the dead consumer's order was not processed by
// the other, or a lock node was left.
func TestRun(t *testing.T) {
	demotest.Run(t, func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, 4)
	}, "consumer 1 dies in the middle of order-1", "order-1 was processed by [consumer 2]", "OK: ")
}

// TestBadConfig checks that run refuses an out-of-range count before it
// touches the network.
func TestBadConfig(t *testing.T) {
	for _, n := range []int{1, 51} {
		if err := run(context.Background(), "", nil, n); err == nil || !strings.Contains(err.Error(), "orders") {
			t.Errorf("run(%d) = %v, want an error naming orders", n, err)
		}
	}
}
