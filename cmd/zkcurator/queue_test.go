package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// queueArgs returns the arguments of 'zkcurator queue' against srv.
func queueArgs(connect, action string, args ...string) []string {
	return append(append([]string{"queue", action}, connArgs(connect)...), args...)
}

// queueRun runs zkcurator queue to the end and returns its status, stdout
// and stderr.
func queueRun(t *testing.T, connect, action string, args ...string) (int, string, string) {
	t.Helper()
	p := start(t, queueArgs(connect, action, args...)...)
	code := p.wait(t)
	return code, p.stdout.String(), p.stderr.String()
}

func mustPut(t *testing.T, connect string, args ...string) {
	t.Helper()
	if code, _, stderr := queueRun(t, connect, "put", args...); code != 0 {
		t.Fatalf("queue put %q: status %d, stderr %q", args, code, stderr)
	}
}

// TestQueueRoundTrip: what each form of put puts, take of the same type
// prints, in that queue's order; a delayed item is not taken before it is due.
func TestQueueRoundTrip(t *testing.T) {
	srv := sharedServer(t)
	connect := srv.ConnectString()
	t.Run("plain", func(t *testing.T) {
		path := testPath(t)
		mustPut(t, connect, path, "first")
		mustPut(t, connect, path, "second")
		code, out, stderr := queueRun(t, connect, "take", "--count", "2", "--wait", "10s", path)
		if code != 0 || out != "first\nsecond\n" {
			t.Errorf("take: status %d, stdout %q, stderr %q; want first and second", code, out, stderr)
		}
	})
	t.Run("id", func(t *testing.T) {
		path := testPath(t)
		mustPut(t, connect, "--id", "x/1", path, "first")
		mustPut(t, connect, "--id", "a", path, "second")
		code, out, stderr := queueRun(t, connect, "take", "--type", "id", "--count", "2", "--wait", "10s", path)
		if code != 0 || out != "first\nsecond\n" {
			t.Errorf("take: status %d, stdout %q, stderr %q; want first and second, in put order", code, out, stderr)
		}
	})
	t.Run("priority", func(t *testing.T) {
		path := testPath(t)
		mustPut(t, connect, "--priority", "5", path, "low")
		mustPut(t, connect, "--priority", "-3", path, "high")
		code, out, stderr := queueRun(t, connect, "take", "--type", "priority", "--count", "2", "--wait", "10s", path)
		if code != 0 || out != "high\nlow\n" {
			t.Errorf("take: status %d, stdout %q, stderr %q; want high then low", code, out, stderr)
		}
	})
	t.Run("delay", func(t *testing.T) {
		path := testPath(t)
		const delay = 1500 * time.Millisecond
		before := time.Now()
		mustPut(t, connect, "--delay", delay.String(), path, "later")
		code, out, stderr := queueRun(t, connect, "take", "--type", "delay", "--wait", "10s", path)
		if code != 0 || out != "later\n" {
			t.Errorf("take: status %d, stdout %q, stderr %q; want the delayed item", code, out, stderr)
		}
		if took := time.Since(before); took < delay {
			t.Errorf("the delayed item was taken %v after its put, before its delay %v", took, delay)
		}
	})
}

// TestQueuePutStdin: put with - puts all of stdin as one item, newlines
// and all.
func TestQueuePutStdin(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	data := "line one\nline two\x00\n"
	cmd := exec.Command(binary, queueArgs(srv.ConnectString(), "put", path, "-")...)
	cmd.Env = append(os.Environ(), "ZK_CONNECT=", "ZK_AUTH=")
	cmd.Stdin = strings.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("put -: %v, stderr %q", err, stderr.String())
	}
	code, out, errs := queueRun(t, srv.ConnectString(), "take", "--raw", "--wait", "10s", path)
	if code != 0 || out != data {
		t.Errorf("take --raw: status %d, stdout %q, stderr %q; want %q", code, out, errs, data)
	}
}

// TestQueueTakeCountRaw: --count takes that many items and leaves the rest;
// --raw prints the bytes with nothing between them, without it each item
// is a line.
func TestQueueTakeCountRaw(t *testing.T) {
	srv := sharedServer(t)
	connect := srv.ConnectString()
	path := testPath(t)
	for _, d := range []string{"a", "b", "c"} {
		mustPut(t, connect, path, d)
	}
	if code, out, stderr := queueRun(t, connect, "take", "--count", "2", "--raw", "--wait", "10s", path); code != 0 || out != "ab" {
		t.Errorf("take --count 2 --raw: status %d, stdout %q, stderr %q; want ab", code, out, stderr)
	}
	kids, _, err := testClient(t, connect).Children(testCtx(t), path)
	if err != nil || len(kids) != 1 {
		t.Fatalf("after taking 2 of 3: children %q, err %v; want one item left", kids, err)
	}
	if code, out, stderr := queueRun(t, connect, "take", "--wait", "10s", path); code != 0 || out != "c\n" {
		t.Errorf("take: status %d, stdout %q, stderr %q; want the line c", code, out, stderr)
	}
}

// TestQueueTakeWaitEmpty: take --wait on an empty queue exits with 75 once
// its wait elapsed, not before and not long after; with fewer items than
// --count it prints those it took.
func TestQueueTakeWaitEmpty(t *testing.T) {
	srv := sharedServer(t)
	connect := srv.ConnectString()
	path := testPath(t)
	const wait = 1500 * time.Millisecond
	began := time.Now()
	code, out, stderr := queueRun(t, connect, "take", "--wait", wait.String(), path)
	took := time.Since(began)
	if code != exitTimeout || out != "" || !strings.Contains(stderr, "0 of 1 items of "+path+" taken within --wait 1.5s") {
		t.Errorf("take on an empty queue: status %d, stdout %q, stderr %q; want %d and nothing printed", code, out, stderr, exitTimeout)
	}
	// The bound: the wait, plus starting the process and closing its client.
	if took < wait || took > wait+3*time.Second {
		t.Errorf("take --wait %v exited after %v", wait, took)
	}
	mustPut(t, connect, path, "only")
	code, out, stderr = queueRun(t, connect, "take", "--count", "2", "--wait", "1s", path)
	if code != exitTimeout || out != "only\n" {
		t.Errorf("take --count 2 of one item: status %d, stdout %q, stderr %q; want %d and the one item", code, out, stderr, exitTimeout)
	}
}

// TestQueueTakeLockPath: take --lock-path takes items as Curator's lock
// safety does and leaves neither the item nor its lock node behind.
func TestQueueTakeLockPath(t *testing.T) {
	srv := sharedServer(t)
	connect := srv.ConnectString()
	path := testPath(t)
	lockPath := path + "-locks"
	mustPut(t, connect, path, "one")
	mustPut(t, connect, path, "two")
	code, out, stderr := queueRun(t, connect, "take", "--lock-path", lockPath, "--wait", "10s", path)
	if code != 0 || out != "one\n" {
		t.Errorf("take --lock-path: status %d, stdout %q, stderr %q; want one", code, out, stderr)
	}
	c := testClient(t, connect)
	if kids, _, err := c.Children(testCtx(t), lockPath); err != nil || len(kids) != 0 {
		t.Errorf("lock path %s: children %q, err %v; want it to exist with no lock node left", lockPath, kids, err)
	}
	if kids, _, err := c.Children(testCtx(t), path); err != nil || len(kids) != 1 {
		t.Errorf("queue %s: children %q, err %v; want the second item left", path, kids, err)
	}
	code, out, stderr = queueRun(t, connect, "take", "--lock-path", lockPath, "--wait", "10s", path)
	if code != 0 || out != "two\n" {
		t.Errorf("second take --lock-path: status %d, stdout %q, stderr %q; want two", code, out, stderr)
	}
}

// TestQueueBadInput: bad input exits with 64, naming the value, before any
// network call (the ensemble given is unreachable: a call would be 69).
func TestQueueBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"negative count", []string{"take", "--count", "-1", "/q"}, `invalid value "-1" for flag -count`},
		{"zero count", []string{"take", "--count", "0", "/q"}, `invalid value "0" for flag -count`},
		{"id with priority", []string{"put", "--id", "x", "--priority", "1", "/q", "d"}, "--id and --priority cannot be used together"},
		{"relative path", []string{"take", "q"}, `bad PATH "q"`},
		{"relative path on put", []string{"put", "q", "d"}, `bad PATH "q"`},
		{"priority out of range", []string{"put", "--priority", "2147483648", "/q", "d"}, `invalid value "2147483648" for flag -priority`},
		{"take flag on put", []string{"put", "--count", "2", "/q", "d"}, "--count is a flag of 'queue take'"},
		{"put flag on take", []string{"take", "--id", "x", "/q"}, "--id is a flag of 'queue put'"},
		{"missing data", []string{"put", "/q"}, "missing DATA"},
		{"data on take", []string{"take", "/q", "d"}, `unexpected argument "d"`},
		{"unknown action", []string{"peek", "/q"}, `unknown action "peek"`},
		{"bad type", []string{"take", "--type", "fifo", "/q"}, `bad --type "fifo"`},
		{"lock path is the queue", []string{"take", "--lock-path", "/q", "/q"}, `bad --lock-path "/q"`},
		{"relative lock path", []string{"take", "--lock-path", "l", "/q"}, `bad --lock-path "l"`},
		{"empty id", []string{"put", "--id", "", "/q", "d"}, `bad --id ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"queue", "--connect", "127.0.0.1:1", "--connect-timeout", "100ms"}, tc.args...)
			code, stderr := runTool(t, args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("zkcurator %q: status %d, stderr %q; want %d and %q", args, code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// TestQueueUnreachableAndRefused: with no ZooKeeper put exits 69 within
// --connect-timeout and take within --wait; a queue whose ACL refuses this
// client exits 77 naming it.
func TestQueueUnreachableAndRefused(t *testing.T) {
	addr := closedAddr(t)
	code, stderr := runTool(t, "queue", "put", "--connect", addr, "--connect-timeout", "1s", "/q", "d")
	if code != exitUnavailable || !strings.Contains(stderr, "cannot reach ZooKeeper") {
		t.Errorf("put with no ZooKeeper: status %d, stderr %q; want %d", code, stderr, exitUnavailable)
	}
	began := time.Now()
	code, stderr = runTool(t, "queue", "take", "--connect", addr, "--wait", "1s", "/q")
	if took := time.Since(began); code != exitUnavailable || took > 4*time.Second {
		t.Errorf("take --wait 1s with no ZooKeeper: status %d after %v, stderr %q; want %d within the wait", code, took, stderr, exitUnavailable)
	}

	srv := sharedServer(t)
	ctx := testCtx(t)
	owner, err := framework.NewClient(srv.ConnectString(), retryPolicy, framework.WithAuth("digest", []byte("owner:secret")))
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { owner.Close() })
	if err := owner.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
	path := testPath(t)
	if _, err := owner.Create(ctx, path, nil, framework.WithACL(zk.DigestACL(zk.PermAll, "owner", "secret")...), framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = owner.Delete(context.Background(), path, framework.DeletingChildrenIfNeeded(), framework.Quietly())
	})
	for _, args := range [][]string{{"put", path, "d"}, {"take", "--wait", "5s", path}} {
		code, _, stderr := queueRun(t, srv.ConnectString(), args[0], args[1:]...)
		if code != exitNoPermission || !strings.Contains(stderr, path) || !strings.Contains(stderr, "refused") {
			t.Errorf("queue %q on a refusing ACL: status %d, stderr %q; want %d naming %s", args, code, stderr, exitNoPermission, path)
		}
	}
}

// TestQueueTakeInterrupted: SIGTERM while take waits ends it with 143 at
// once, without waiting out --wait.
func TestQueueTakeInterrupted(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	lockPath := path + "-locks"
	p := start(t, queueArgs(srv.ConnectString(), "take", "--lock-path", lockPath, "--wait", "60s", path)...)
	c := testClient(t, srv.ConnectString())
	eventually(t, "take to create its lock path", func() bool {
		st, err := c.Exists(testCtx(t), lockPath)
		return err == nil && st != nil
	})
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 143 || !strings.Contains(p.stderr.String(), "interrupted by SIGTERM") {
		t.Errorf("take after SIGTERM: status %d, stderr %q; want 143", code, p.stderr.String())
	}
}
