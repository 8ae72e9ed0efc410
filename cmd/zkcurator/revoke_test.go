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

	rows, code, stderr := participants(t, srv.ConnectString(), path)
	if code != 0 || len(rows) != 2 || rows[0] != (row{"1", "HOLDS", rows[0].node, rows[0].session, rows[0].token, "holder-data"}) ||
		rows[1].state != "WAITS" || rows[1].data != "waiter-data" {
		t.Fatalf("participants: status %d, rows %q, stderr %q; want the holder first, then the waiter, with their data", code, rows, stderr)
	}
	first := rows[0].node

	code, stderr = runTool(t, append(append([]string{"revoke"}, conn...), first)...)
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

	code, stderr = runTool(t, append(append([]string{"revoke"}, conn...), first)...)
	if code != exitNotFound || !strings.Contains(stderr, "no node "+first) {
		t.Errorf("revoking a missing node: status %d, stderr %q; want %d and a line naming the node", code, stderr, exitNotFound)
	}
}
