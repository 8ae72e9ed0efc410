// Package demotest runs the examples' demos in tests, against a real
// ZooKeeper started for each test.
package demotest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Run starts a ZooKeeper for the test, runs demo against it within three
// minutes (a demo that builds a binary may wait for a cold build cache on a
// busy machine), and fails the test if demo returns an error (its own invariant check
// failed, so the program would exit with status 1) or its output lacks any of
// want. It returns the output for further checks.
func Run(t *testing.T, demo func(ctx context.Context, connect string, out io.Writer) error, want ...string) string {
	t.Helper()
	srv := zktest.StartServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := demo(ctx, srv.ConnectString(), &out); err != nil {
		t.Fatalf("run: %v\noutput:\n%s", err, out.String())
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
	return out.String()
}
