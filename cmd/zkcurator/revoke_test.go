package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
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

// TestRevokeOnlyContenders: revoke writes only to a contender's ephemeral
// node. A lock path stands for its holder's node (a --revocable holder
// stops); a plain node, the lock folder, the unfair driver's holder node, a
// persistent node with a contender's name and an ephemeral node with another
// name are refused with status 64 and keep their data.
func TestRevokeOnlyContenders(t *testing.T) {
	srv := sharedServer(t)
	conn := connArgs(srv.ConnectString())
	c := testClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path, unfair := testPath(t)+"/lock", testPath(t)+"/unfair"
	create := func(p, data string, mode framework.CreateMode) {
		t.Helper()
		if _, err := c.Create(ctx, p, []byte(data), framework.WithMode(mode), framework.CreatingParentsIfNeeded()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), p, framework.Quietly()) })
	}
	config := testPath(t) + "/config"
	create(config, "important", framework.Persistent)

	file := filepath.Join(t.TempDir(), "log")
	holder := start(t, append(append([]string{"lock", "--revocable"}, conn...), path, "--", "sh", "-c", loopScript, "holder", file)...)
	eventually(t, "the holder's command to start", func() bool { return hasLine(t, file, "start holder") })
	start(t, append(append([]string{"lock", "--unfair"}, conn...), unfair, "--", "sh", "-c", loopScript, "unfair", file)...)
	eventually(t, "the unfair holder's command to start", func() bool { return hasLine(t, file, "start unfair") })
	persistent := framework.JoinPath(path, protection.Name(protection.NewID(), "lock-9999999999"))
	create(persistent, "persistent", framework.Persistent)
	other := framework.JoinPath(path, "other")
	create(other, "other", framework.Ephemeral)

	for _, node := range []string{config, testPath(t), persistent, other, unfair + "/" + locks.UnfairHolderNodeName} {
		before, _, err := c.GetData(ctx, node)
		if err != nil {
			t.Fatal(err)
		}
		code, stderr := runTool(t, append(append([]string{"revoke"}, conn...), node)...)
		if code != exitUsage || !strings.Contains(stderr, node) || !strings.Contains(stderr, "left alone") {
			t.Errorf("revoke %s: status %d, stderr %q; want %d and a line naming the node", node, code, stderr, exitUsage)
		}
		if after, _, err := c.GetData(ctx, node); err != nil || string(after) != string(before) {
			t.Errorf("revoke %s changed its data from %q to %q (%v)", node, before, after, err)
		}
	}
	if hasLine(t, file, "term holder") {
		t.Fatal("a refused revoke stopped the holder")
	}

	code, stderr := runTool(t, append(append([]string{"revoke"}, conn...), path)...)
	if code != 0 {
		t.Fatalf("revoke of the lock path: status %d, stderr %q; want 0", code, stderr)
	}
	if code := holder.wait(t); code != exitLost {
		t.Errorf("the holder of the revoked lock path exited with %d, want %d: %s", code, exitLost, holder.stderr.String())
	}
	if data, _, err := c.GetData(ctx, path); err != nil || len(data) != 0 {
		t.Errorf("the lock folder's data is %q (%v), want it untouched", data, err)
	}
}
