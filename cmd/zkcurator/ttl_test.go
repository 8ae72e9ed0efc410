package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestTTLWithoutServerSupport: --ttl against a server without
// zookeeper.extendedTypesEnabled fails at once with status 69 and a line
// that says the server lacks TTL nodes, runs nothing and leaves no node.
func TestTTLWithoutServerSupport(t *testing.T) {
	srv := zktest.StartServer(t) // no extended types
	path := testPath(t)
	file := filepath.Join(t.TempDir(), "ran")
	began := time.Now()
	code, stderr := runTool(t, append(append([]string{"lock", "--ttl", "10s"}, connArgs(srv.ConnectString())...), path, "--", "touch", file)...)
	t.Logf("exited after %v: %s", time.Since(began), stderr)
	if code != exitUnavailable || len(toolLines(stderr)) != 1 || !strings.Contains(stderr, "extendedTypesEnabled") || strings.Contains(stderr, "unknown error") {
		t.Errorf("status %d, stderr %q; want %d and one line saying the server has no TTL nodes", code, stderr, exitUnavailable)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("the command ran")
	}
	if n := countParticipants(t, srv.ConnectString(), path); n != 0 {
		t.Errorf("%d nodes left at %s", n, path)
	}
}
