package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSemaphoreLeases checks semaphore --leases 2: two instances run their
// commands at once, a third gives up with status 75 while both hold a
// lease, participants lists the two lease nodes with their sessions and
// tokens, and once the two are done the third gets a lease.
func TestSemaphoreLeases(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	dir := t.TempDir()
	file, stop := filepath.Join(dir, "log"), filepath.Join(dir, "stop")
	script := `echo "start $0" >> "$1"; while [ ! -e "$2" ]; do sleep 0.05; done; echo "end $0" >> "$1"`
	sem := func(name string, flags ...string) []string {
		args := append([]string{"semaphore", "--leases", "2"}, connArgs(srv.ConnectString())...)
		return append(append(args, flags...), path, "--", "sh", "-c", script, name, file, stop)
	}
	a, b := start(t, sem("a")...), start(t, sem("b")...)
	eventually(t, "both holders' commands to run at once", func() bool {
		return hasLine(t, file, "start a") && hasLine(t, file, "start b")
	})

	code, stderr := runTool(t, sem("c", "--wait", "200ms")...)
	if code != exitTimeout || !strings.Contains(stderr, "lease of semaphore "+path+" not acquired within 200ms") {
		t.Errorf("a third lease: status %d, stderr %q; want %d and a line saying it was not acquired", code, stderr, exitTimeout)
	}
	rows, code, stderr := participants(t, srv.ConnectString(), path)
	if code != 0 || len(rows) != 2 {
		t.Fatalf("participants: status %d, rows %q, stderr %q; want two lease nodes", code, rows, stderr)
	}
	for _, r := range rows {
		if r.state != "HOLDS" || !strings.HasPrefix(r.node, path+"/leases/_c_") || !strings.Contains(r.node, "-lease-") ||
			!strings.HasPrefix(r.session, "0x") || r.token == "0" || !strings.HasPrefix(r.data, "zkcurator on ") {
			t.Errorf("participants row %q, want: position, HOLDS, lease node, session, token, data", r)
		}
	}

	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*proc{a, b} {
		if code := p.wait(t); code != 0 {
			t.Errorf("a holder exited with %d: %s", code, p.stderr.String())
		}
	}
	if code, stderr := runTool(t, sem("c", "--wait", "0s")...); code != 0 {
		t.Errorf("a lease after the holders left: status %d, stderr %q", code, stderr)
	}
	if hasLine(t, file, "start c") != true || len(readLines(t, file)) != 6 {
		t.Errorf("lines %q, want a and b to start and end, then c", readLines(t, file))
	}
}
