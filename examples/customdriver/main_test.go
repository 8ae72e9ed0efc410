package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/examples/internal/demotest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the program's logic with small counts against a real
// ZooKeeper: run fails (and the program would exit with status 1) if its own
// check of exclusion and of the holder's identity fails. The output must show
// every hold with the holder's identity first and other workers waiting.
func TestRun(t *testing.T) {
	cfg := config{Workers: 3, Rounds: 2, Hold: 10 * time.Millisecond}
	text := demotest.Run(t, func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
	for w := 1; w <= cfg.Workers; w++ {
		for r := 1; r <= cfg.Rounds; r++ {
			if want := fmt.Sprintf("worker %d holds the lock (round %d of %d)", w, r, cfg.Rounds); !strings.Contains(text, want) {
				t.Errorf("output lacks %q:\n%s", want, text)
			}
		}
	}
	if got, want := strings.Count(text, "  HOLDS  "), cfg.Workers*cfg.Rounds; got != want {
		t.Errorf("%d HOLDS lines, want %d:\n%s", got, want, text)
	}
	// The first holder waits until everyone else is in line, so at least
	// the others' nodes are listed as waiting then.
	if got := strings.Count(text, "  waits  "); got < cfg.Workers-1 {
		t.Errorf("%d waits lines, want at least %d:\n%s", got, cfg.Workers-1, text)
	}
	for _, want := range []string{"pid=", "host=", "(no contenders)", "OK: 6 holds"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestConfigRejectsBadCounts(t *testing.T) {
	for _, cfg := range []config{
		{Workers: 1, Rounds: 1},
		{Workers: 21, Rounds: 1},
		{Workers: 2, Rounds: 0},
		{Workers: 2, Rounds: 1, Hold: -time.Second},
	} {
		err := run(context.Background(), "127.0.0.1:1", nil, cfg)
		if err == nil {
			t.Errorf("run with %+v succeeded; want an error before connecting", cfg)
		}
	}
}
