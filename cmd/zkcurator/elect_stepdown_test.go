package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// slowStopScript, run by sh with $0 a name and $1 a file, appends "start
// NAME" and runs until SIGTERM, on which it appends "term NAME", takes two
// seconds to stop, appends "end NAME" and exits with status 3.
const slowStopScript = `echo "start $0" >> "$1"; trap 'echo "term $0" >> "$1"; sleep 2; echo "end $0" >> "$1"; exit 3' TERM; while :; do sleep 0.05; done`

// TestElectKeepsItsPlaceWhileTheCommandStops pauses a leader's connection
// long enough to end its leadership but not its session: its command gets
// SIGTERM and takes seconds to stop, while the leader reconnects. The next
// participant's command must not start before the first one has exited.
func TestElectKeepsItsPlaceWhileTheCommandStops(t *testing.T) {
	srv := sharedServer(t)
	proxy := zktest.StartProxy(t, srv.Addr())
	path := testPath(t)
	file := filepath.Join(t.TempDir(), "log")

	first := start(t, "elect", "--id", "first", "--connect", proxy.Addr(), "--session-timeout", "6s", "--connect-timeout", "5s", "--grace", "10s",
		path, "--", "sh", "-c", slowStopScript, "first", file)
	eventually(t, "the first leader's command to start", func() bool { return hasLine(t, file, "start first") })
	next := start(t, append(append([]string{"elect", "--id", "next"}, connArgs(srv.ConnectString())...), path, "--", "sh", "-c", `echo "start $0" >> "$1"`, "next", file)...)
	eventually(t, "the next participant to queue", func() bool { return countParticipants(t, srv.ConnectString(), path) == 2 })

	proxy.Pause()
	eventually(t, "the first leader's command to get SIGTERM", func() bool { return hasLine(t, file, "term first") })
	proxy.Resume() // well within the 6s session: the leader reconnects
	if code := next.wait(t); code != 0 {
		t.Fatalf("the next participant exited with %d; stderr: %s", code, next.stderr.String())
	}
	if code := first.wait(t); code != exitLost {
		t.Errorf("the first leader exited with %d, want %d; stderr: %s", code, exitLost, first.stderr.String())
	}
	want := []string{"start first", "term first", "end first", "start next"}
	if got := readLines(t, file); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q: the next leader's command started before the first one had exited", got, want)
	}
}
