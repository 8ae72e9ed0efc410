package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demo"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the demo with small counts against a real ZooKeeper: run
// fails (and the program would exit with status 1) if the demo's own check
// of its invariant fails.
func TestRun(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, srv.ConnectString(), &out, demo.InventoryConfig{Stock: 10, Buyers: 12, Think: 2 * time.Millisecond}); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	for _, want := range []string{"round 1, no lock", "sold 10, told \"sold out\" 2, stock left in ZooKeeper 0", "OK: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
