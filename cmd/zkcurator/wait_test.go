package main

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// startCost measures what running zkcurator costs here, without any wait:
// the time a usage error takes from start to exit.
func startCost(t *testing.T) time.Duration {
	began := time.Now()
	if code, stderr := runTool(t, "lock", "--wait", "5x", "/p", "--", "true"); code != exitUsage {
		t.Fatalf("a usage error exited with %d: %s", code, stderr)
	}
	return time.Since(began)
}

// TestWaitBoundsConnecting: --wait bounds connecting too, for every
// subcommand that takes it. Against an address where nothing listens, and
// through a proxy that accepts connections but passes nothing on,
// zkcurator exits with status 69 within --wait (one second, the least
// connecting gets, for --wait 0)
// and the default 15s --connect-timeout never comes into play; the command
// does not run.
func TestWaitBoundsConnecting(t *testing.T) {
	srv := sharedServer(t)
	paused := zktest.StartProxy(t, srv.Addr())
	paused.Pause()
	t.Cleanup(paused.Resume)
	closed := closedAddr(t)
	// A run may take beyond its --wait what starting and ending a process
	// takes (three times the longer of two usage errors just now, for a
	// loaded machine), and a second to give up its connection attempt;
	// far below the 15s --connect-timeout that bounded it before.
	slack := time.Second + 3*max(startCost(t), startCost(t))
	t.Logf("slack %v", slack)
	subcommands := map[string][]string{
		"lock":      {"lock"},
		"semaphore": {"semaphore", "--leases", "2"},
		"elect":     {"elect", "--id", "a"},
		"register":  {"register", "--address", "127.0.0.1", "--port", "8080"},
	}
	target := map[string]string{"register": "wait-bounds"} // a service name
	for _, name := range []string{"lock", "semaphore", "elect", "register"} {
		for _, tc := range []struct {
			target string
			addr   string
			wait   string
			bound  time.Duration
		}{
			{"nothing listens", closed, "2s", 2 * time.Second},
			{"nothing listens", closed, "0", oneTry},
			{"paused proxy", paused.Addr(), "2s", 2 * time.Second},
		} {
			if tc.target == "paused proxy" && name != "lock" {
				continue
			}
			t.Run(name+"/"+tc.target+"/wait "+tc.wait, func(t *testing.T) {
				file := filepath.Join(t.TempDir(), "ran")
				args := append(append([]string{}, subcommands[name]...), "--connect", tc.addr, "--wait", tc.wait, cmp.Or(target[name], "/cli/wait-bounds"), "--", "touch", file)
				began := time.Now()
				code, stderr := runTool(t, args...)
				took := time.Since(began)
				if code != exitUnavailable || !strings.Contains(stderr, "cannot reach ZooKeeper at "+tc.addr+" within --wait") {
					t.Errorf("status %d, stderr %q; want %d and a line saying ZooKeeper was not reached within --wait", code, stderr, exitUnavailable)
				}
				if took > tc.bound+slack {
					t.Errorf("exited %v after starting, want within --wait %s (%v) + %v", took, tc.wait, tc.bound, slack)
				}
				if _, err := os.Stat(file); err == nil {
					t.Error("the command ran")
				}
				t.Logf("exited after %v", took)
			})
		}
	}
}
