package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestLostTokenReadDuringAcquireStillRunsOnce loses the reply to the first
// getData of the run, the fencing token's read, which the lock and the
// semaphore send while they take their node, and the connection goes with it.
// The acquisition carries on in the same session: the command runs once,
// with the token of the node it holds (never 0), and no node is left.
func TestLostTokenReadDuringAcquireStillRunsOnce(t *testing.T) {
	srv := sharedServer(t)
	for _, kind := range []struct {
		name string
		args []string
	}{
		{"lock", []string{"lock"}},
		{"semaphore", []string{"semaphore", "--leases", "2"}},
	} {
		t.Run(kind.name, func(t *testing.T) {
			proxy := zktest.StartProxy(t, srv.Addr())
			path := testPath(t)
			file := filepath.Join(t.TempDir(), "ran")
			proxy.LoseNextReply(zktest.OpGetData)
			args := append(append(kind.args, connArgs(proxy.Addr())...), path, "--", "sh", "-c", `echo "$ZKCURATOR_FENCING_TOKEN" >> "$0"`, file)
			code, stderr := runTool(t, args...)
			if proxy.LostReplies() != 1 {
				t.Fatalf("%d replies lost, want the token read's", proxy.LostReplies())
			}
			if code != 0 {
				t.Fatalf("status %d, stderr %q; want 0", code, stderr)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("the command did not run: %v", err)
			}
			lines := strings.Fields(string(b))
			if len(lines) != 1 {
				t.Fatalf("the command ran %d times, want once", len(lines))
			}
			if tok, err := strconv.ParseInt(lines[0], 10, 64); err != nil || tok <= 0 {
				t.Fatalf("the command's token %q, want the node's czxid", lines[0])
			}
			eventually(t, "the node to go", func() bool { return countParticipants(t, srv.ConnectString(), path) == 0 })
		})
	}
}

// TestNoCommandUnderALostHold: a hold whose certainty ended before the
// command would start (lost or revoked) or that has no fencing token never
// starts the command; zkcurator exits with status 79 (69 without a token).
func TestNoCommandUnderALostHold(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	for _, c := range []struct {
		name string
		h    hold
		want int
		says string
	}{
		{"lost", hold{what: "lock /x", token: 7, lost: closed}, exitLost, "lost before the command started"},
		{"revoked", hold{what: "lock /x", token: 7, lost: make(chan struct{}), revoked: closed}, exitLost, "revoked before the command started"},
		{"no token", hold{what: "lock /x", lost: make(chan struct{})}, exitUnavailable, "without a fencing token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "ran")
			cmd := exec.Command("sh", "-c", `echo ran > "$0"`, file)
			err := runChild(cmd, c.h, time.Second, nil, zap.NewNop())
			if _, statErr := os.Stat(file); statErr == nil {
				t.Fatal("the command ran")
			}
			if exitCode(err) != c.want || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("runChild = %v (status %d), want status %d saying %q", err, exitCode(err), c.want, c.says)
			}
		})
	}
}
