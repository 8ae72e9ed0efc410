package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestParticipantsAndRevoke lists a lock's holder and a waiter, then revokes
// the holder's node: a --revocable holder stops its command (SIGTERM) and
// exits with status 79, and the waiter runs. Revoking a missing node exits
// with status 1.
func TestParticipantsAndRevoke(t *testing.T) {
	srv := sharedServer(t)
	conn := connArgs(srv.ConnectString())
	path := testPath(t)
	file := filepath.Join(t.TempDir(), "log")
	holder := start(t, append(append([]string{"lock", "--revocable", "--data", "holder-data"}, conn...), path, "--", "sh", "-c", loopScript, "holder", file)...)
	eventually(t, "the holder's command to start", func() bool { return hasLine(t, file, "start holder") })
	waiter := start(t, append(append([]string{"lock", "--data", "waiter-data"}, conn...), path, "--", "sh", "-c", `echo "start $0" >> "$1"`, "waiter", file)...)
	eventually(t, "the waiter to queue", func() bool { return countParticipants(t, srv.ConnectString(), path) == 2 })

	p := start(t, append(append([]string{"participants"}, conn...), path)...)
	if code := p.wait(t); code != 0 {
		t.Fatalf("participants exited with %d: %s", code, p.stderr.String())
	}
	lines := readLinesOf(p.stdout.String())
	if len(lines) != 3 {
		t.Fatalf("participants printed %q, want a header and two nodes", lines)
	}
	first, second := strings.Fields(lines[1]), strings.Fields(lines[2])
	if len(first) != 5 || first[0] != "1" || first[4] != "holder-data" || len(second) != 5 || second[4] != "waiter-data" {
		t.Fatalf("participants printed %q, want the holder first, then the waiter, with their data", lines)
	}

	code, stderr := runTool(t, append(append([]string{"revoke"}, conn...), first[1])...)
	if code != 0 {
		t.Fatalf("revoke exited with %d: %s", code, stderr)
	}
	if code := holder.wait(t); code != exitLost {
		t.Errorf("the revoked holder exited with %d, want %d: %s", code, exitLost, holder.stderr.String())
	}
	if ours := toolLines(holder.stderr.String()); len(ours) != 1 || !strings.Contains(ours[0], "was revoked") {
		t.Errorf("the revoked holder printed %q, want one line saying the lock was revoked", holder.stderr.String())
	}
	if code := waiter.wait(t); code != 0 {
		t.Errorf("the waiter exited with %d: %s", code, waiter.stderr.String())
	}
	want := "start holder|term holder|start waiter"
	if got := strings.Join(readLines(t, file), "|"); got != want {
		t.Errorf("lines %q, want %q", got, want)
	}

	code, stderr = runTool(t, append(append([]string{"revoke"}, conn...), first[1])...)
	if code != exitNotFound || !strings.Contains(stderr, "no node "+first[1]) {
		t.Errorf("revoking a missing node: status %d, stderr %q; want %d and a line naming the node", code, stderr, exitNotFound)
	}
}
