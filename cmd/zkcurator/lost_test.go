package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestNoCommandUnderALostHold loses the reply to the fencing token's read
// (a getData, the first of the run) and severs the connection: the lock or
// lease was granted, but holding it is no longer certain when the command
// would start. zkcurator must exit with status 79 without starting the
// command, never start it with a token of 0, and leave no node behind.
func TestNoCommandUnderALostHold(t *testing.T) {
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
			args := append(append(kind.args, connArgs(proxy.Addr())...), path, "--", "sh", "-c", `echo "$ZKCURATOR_FENCING_TOKEN" > "$0"`, file)
			code, stderr := runTool(t, args...)
			if proxy.LostReplies() != 1 {
				t.Fatalf("%d replies lost, want the token read's", proxy.LostReplies())
			}
			if b, err := os.ReadFile(file); err == nil {
				t.Errorf("the command ran under a lost hold, with token %q", strings.TrimSpace(string(b)))
			}
			if code != exitLost || !strings.Contains(stderr, "before the command started") {
				t.Errorf("status %d, stderr %q; want %d and a line saying the hold was lost before the command started", code, stderr, exitLost)
			}
			eventually(t, "the node to go", func() bool { return countParticipants(t, srv.ConnectString(), path) == 0 })
		})
	}
}
