package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
)

// tokenLoopScript is loopScript that also appends the fencing token it got:
// "start NAME TOKEN".
const tokenLoopScript = `echo "start $0 $ZKCURATOR_FENCING_TOKEN" >> "$1"; trap 'exit 3' TERM; while :; do sleep 0.05; done`

// TestParticipantsKinds lists each kind of path participants meets while
// one contender holds and others wait, and checks the HOLDS and WAITS marks
// and the order: a LeaderLatch election, a LeaderSelector election, a lock
// of the unfair driver (whose holder node is bookkeeping, not a contender),
// a read/write lock and a semaphore. A missing path exits with status 1.
func TestParticipantsKinds(t *testing.T) {
	srv := sharedServer(t)
	conn := connArgs(srv.ConnectString())
	// queue starts zkcurator with args on path running script as name, and
	// waits until participants lists n nodes.
	queue := func(t *testing.T, path, script, name string, n int, args ...string) {
		file := filepath.Join(t.TempDir(), name)
		start(t, append(append(args, conn...), path, "--", "sh", "-c", script, name, file)...)
		eventually(t, name+" to queue", func() bool { return countParticipants(t, srv.ConnectString(), path) == n })
	}
	check := func(t *testing.T, path string, want ...string) []row {
		t.Helper()
		rows, code, stderr := participants(t, srv.ConnectString(), path)
		var got []string
		for _, r := range rows {
			got = append(got, r.state+" "+r.data)
		}
		if code != 0 || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("participants %s: status %d, rows %q, stderr %q; want %q", path, code, got, stderr, want)
		}
		return rows
	}

	t.Run("latch", func(t *testing.T) {
		path := testPath(t)
		queue(t, path, loopScript, "a", 1, "elect", "--id", "latch-a")
		queue(t, path, loopScript, "b", 2, "elect", "--id", "latch-b")
		check(t, path, "HOLDS latch-a", "WAITS latch-b")
	})
	t.Run("selector", func(t *testing.T) {
		path := testPath(t)
		c := testClient(t, srv.ConnectString())
		leading := make(chan string, 2)
		for i, id := range []string{"selector-a", "selector-b"} {
			s, err := leader.NewLeaderSelector(c, path, id, func(ctx context.Context, _ leader.Term) error {
				leading <- id
				<-ctx.Done()
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close(context.Background()) })
			eventually(t, id+" to queue", func() bool { return len(leading) == 1 && countParticipants(t, srv.ConnectString(), path) == i+1 })
		}
		check(t, path, "HOLDS selector-a", "WAITS selector-b")
	})
	t.Run("unfair", func(t *testing.T) {
		path := testPath(t)
		dir := t.TempDir()
		file := filepath.Join(dir, "log")
		start(t, append(append([]string{"lock", "--unfair", "--data", "unfair-a"}, conn...), path, "--", "sh", "-c", tokenLoopScript, "a", file)...)
		eventually(t, "the holder's command to start", func() bool { return len(readLines(t, file)) == 1 })
		queue(t, path, loopScript, "b", 2, "lock", "--unfair", "--data", "unfair-b")
		rows := check(t, path, "HOLDS unfair-a", "WAITS unfair-b")
		for _, r := range rows {
			if strings.Contains(r.node, "holder-lock-") {
				t.Errorf("the unfair driver's holder node is listed as a contender: %q", r)
			}
		}
		if want := "start a " + rows[0].token; readLines(t, file)[0] != want {
			t.Errorf("the holder's command printed %q, want %q: the HOLDS row shows the token the holder got", readLines(t, file)[0], want)
		}
	})
	t.Run("read/write", func(t *testing.T) {
		path := testPath(t)
		queue(t, path, loopScript, "r1", 1, "lock", "--read", "--data", "reader-1")
		queue(t, path, loopScript, "r2", 2, "lock", "--read", "--data", "reader-2")
		queue(t, path, loopScript, "w", 3, "lock", "--write", "--data", "writer")
		queue(t, path, loopScript, "r3", 4, "lock", "--read", "--data", "reader-3")
		check(t, path, "HOLDS reader-1", "HOLDS reader-2", "WAITS writer", "WAITS reader-3")
	})
	t.Run("semaphore", func(t *testing.T) {
		path := testPath(t)
		queue(t, path, loopScript, "a", 1, "semaphore", "--leases", "1", "--data", "lease-a")
		queue(t, path, loopScript, "b", 2, "semaphore", "--leases", "1", "--data", "lease-b")
		check(t, path, "HOLDS lease-a", "WAITS lease-b")
	})
	t.Run("missing path", func(t *testing.T) {
		path := testPath(t) + "/none"
		rows, code, stderr := participants(t, srv.ConnectString(), path)
		if code != exitNotFound || len(rows) != 0 || !strings.Contains(stderr, "no node "+path) {
			t.Errorf("status %d, rows %q, stderr %q; want %d and a line naming the path", code, rows, stderr, exitNotFound)
		}
	})
}

// testClient returns a connected client that the test's end closes.
func testClient(t *testing.T, connect string) *framework.Client {
	t.Helper()
	c, err := framework.NewClient(connect, retryPolicy)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.BlockUntilConnected(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return c
}
