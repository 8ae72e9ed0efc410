package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demotest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the demo with small counts against a real ZooKeeper: run
// fails (and the program would exit with status 1) if the demo's own check
// of its invariant fails.
func TestRun(t *testing.T) {
	demotest.Run(t, func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, config{Workers: 4, Hold: 10 * time.Millisecond})
	}, "worker 4 acquired", "arrival order:     1 2 3 4", "OK: ")
}

// TestBadConfig checks that run refuses an out-of-range setting, naming it,
// before it touches the network (the connect string is unusable).
func TestBadConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg  config
		want string
	}{
		{config{Hold: time.Minute}, "Hold 1m0s"},
		{config{Workers: 51}, "Workers 51"},
	} {
		err := run(context.Background(), "", nil, tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%+v) = %v, want an error naming %q", tt.cfg, err, tt.want)
		}
	}
}
