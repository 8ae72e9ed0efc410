package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// TestACLRefusalsExit77: a node whose ACL refuses zkcurator's (absent)
// identity ends participants, revoke, lock and discover with status 77 and
// a line naming the node asked for, never another one's path nor
// "unreachable".
func TestACLRefusalsExit77(t *testing.T) {
	srv := sharedServer(t)
	conn := connArgs(srv.ConnectString())
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
	acl := zk.DigestACL(zk.PermAll, "owner", "secret")
	secure := testPath(t) + "/secure"
	job := secure + "/job"
	for _, p := range []string{secure, job} {
		if _, err := owner.Create(ctx, p, nil, framework.WithACL(acl...), framework.CreatingParentsIfNeeded()); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = owner.Delete(context.Background(), secure, framework.DeletingChildrenIfNeeded(), framework.Quietly())
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"revoke", job}, job},
		{[]string{"participants", secure}, "list " + secure},
		{[]string{"participants", job}, "list " + job},
		{[]string{"lock", job, "--", "true"}, "lock " + job},
		{[]string{"discover", "--base", secure, "job"}, job},
	} {
		code, stderr := runTool(t, append(append([]string{tc.args[0]}, conn...), tc.args[1:]...)...)
		lines := toolLines(stderr)
		if code != exitNoPermission || len(lines) != 1 || !strings.Contains(lines[0], tc.want) || !strings.Contains(lines[0], "refused") {
			t.Errorf("zkcurator %s: status %d, stderr %q; want %d and one line naming %s", strings.Join(tc.args, " "), code, stderr, exitNoPermission, tc.want)
		}
		if strings.Contains(stderr, "list "+secure+":") && !strings.HasSuffix(tc.want, secure) {
			t.Errorf("zkcurator %s names the parent %s: %q", strings.Join(tc.args, " "), secure, stderr)
		}
	}
}

// TestNoContenders: participants of a path with no contender nodes prints
// no table and exits 1 saying so; revoke of a lock or semaphore path whose
// holders have all left (its container still there) exits 1, not 64.
func TestNoContenders(t *testing.T) {
	srv := sharedServer(t)
	conn := connArgs(srv.ConnectString())
	c := testClient(t, srv.ConnectString())
	ctx := testCtx(t)
	base := testPath(t)
	plain, lock, sem := base+"/plain", base+"/lock", base+"/sem"
	create := func(p string, mode framework.CreateMode) {
		t.Helper()
		if _, err := c.Create(ctx, p, nil, framework.WithMode(mode), framework.CreatingParentsIfNeeded()); err != nil {
			t.Fatal(err)
		}
	}
	// The lock path as its last holder leaves it (its contender gone), but
	// persistent, so that the server does not reap it during the test;
	// containers that never had a child stay until deleted.
	create(plain, framework.Persistent)
	create(lock+"/_c_00000000-0000-0000-0000-000000000000-lock-0000000000", framework.Persistent)
	if err := c.Delete(ctx, lock+"/_c_00000000-0000-0000-0000-000000000000-lock-0000000000"); err != nil {
		t.Fatal(err)
	}
	create(sem, framework.Container)
	create(sem+"/leases", framework.Container)
	create(sem+"/locks", framework.Container)
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), base, framework.DeletingChildrenIfNeeded(), framework.Quietly())
	})

	for _, tc := range []struct {
		path, want string
	}{
		{plain, plain + " has no contenders"},
		{lock, "no one holds or waits for " + lock + " now"},
		{sem, "no one holds or waits for " + sem + " now"},
	} {
		rows, code, stderr := participants(t, srv.ConnectString(), tc.path)
		if code != exitNotFound || len(rows) != 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("participants %s: status %d, rows %v, stderr %q; want %d and %q", tc.path, code, rows, stderr, exitNotFound, tc.want)
		}
	}
	for _, p := range []string{lock, sem} {
		code, stderr := runTool(t, append(append([]string{"revoke"}, conn...), p)...)
		if code != exitNotFound || !strings.Contains(stderr, "no one holds "+p+" now") {
			t.Errorf("revoke %s: status %d, stderr %q; want %d and a line saying no one holds it", p, code, stderr, exitNotFound)
		}
	}
	if code, stderr := runTool(t, append(append([]string{"revoke"}, conn...), plain)...); code != exitUsage {
		t.Errorf("revoke of a plain node: status %d, stderr %q; want %d", code, stderr, exitUsage)
	}
}

// TestRevokeSaysWhetherTheHolderListens: a zkcurator holder started without
// --revocable is not asked (status 1, its data left alone, it keeps
// running); for a holder whose data zkcurator did not write, the output
// says that whether it listens cannot be known.
func TestRevokeSaysWhetherTheHolderListens(t *testing.T) {
	srv := sharedServer(t)
	conn := connArgs(srv.ConnectString())
	c := testClient(t, srv.ConnectString())
	ctx := testCtx(t)
	file := filepath.Join(t.TempDir(), "log")
	deaf, custom := testPath(t)+"/deaf", testPath(t)+"/custom"
	holder := start(t, append(append([]string{"lock"}, conn...), deaf, "--", "sh", "-c", loopScript, "deaf", file)...)
	start(t, append(append([]string{"lock", "--data", "nightly job"}, conn...), custom, "--", "sh", "-c", loopScript, "custom", file)...)
	eventually(t, "both commands to start", func() bool { return hasLine(t, file, "start deaf") && hasLine(t, file, "start custom") })

	rows, _, _ := participants(t, srv.ConnectString(), deaf)
	if len(rows) != 1 {
		t.Fatalf("participants %s: %v, want one holder", deaf, rows)
	}
	before, _, err := c.GetData(ctx, rows[0].node)
	if err != nil {
		t.Fatal(err)
	}
	code, stderr := runTool(t, append(append([]string{"revoke"}, conn...), deaf)...)
	if code != exitNotFound || !strings.Contains(stderr, "does not listen for revocation") {
		t.Errorf("revoke of a holder without --revocable: status %d, stderr %q; want %d and a line saying it does not listen", code, stderr, exitNotFound)
	}
	if after, _, err := c.GetData(ctx, rows[0].node); err != nil || string(after) != string(before) {
		t.Errorf("its data went from %q to %q (%v), want it left alone", before, after, err)
	}
	if holder.exited() {
		t.Errorf("the holder exited: %s", holder.stderr.String())
	}

	p := start(t, append(append([]string{"revoke"}, conn...), custom)...)
	if code := p.wait(t); code != 0 || !strings.Contains(p.stdout.String(), "cannot be known") {
		t.Errorf("revoke of a holder with its own data: status %d, stdout %q, stderr %q; want 0 and a line saying whether it listens cannot be known", code, p.stdout.String(), p.stderr.String())
	}
}

// TestRevokeWriteFailureExits70: revoke whose report cannot be written
// exits 70, as docs/cli.md says.
func TestRevokeWriteFailureExits70(t *testing.T) {
	srv := sharedServer(t)
	conn := connArgs(srv.ConnectString())
	path := testPath(t)
	file := filepath.Join(t.TempDir(), "log")
	start(t, append(append([]string{"lock", "--revocable"}, conn...), path, "--", "sh", "-c", loopScript, "holder", file)...)
	eventually(t, "the holder's command to start", func() bool { return hasLine(t, file, "start holder") })
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	cmd := exec.Command(binary, append(append([]string{"revoke"}, conn...), path)...)
	cmd.Stdout = full
	var stderr strings.Builder
	cmd.Stderr = &stderr
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitInternal || !strings.Contains(stderr.String(), "write") {
		t.Errorf("revoke with stdout on /dev/full: status %d, stderr %q; want %d and a line about the failed write", code, stderr.String(), exitInternal)
	}
}

// TestDiscoverWarnsWithoutVerbose: a node that is not an instance is
// skipped with a warning on stderr, --verbose or not.
func TestDiscoverWarnsWithoutVerbose(t *testing.T) {
	srv := sharedServer(t)
	c := testClient(t, srv.ConnectString())
	ctx := testCtx(t)
	base := testPath(t)
	bad := base + "/api/bad"
	if _, err := c.Create(ctx, bad, []byte("not json"), framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), base, framework.DeletingChildrenIfNeeded(), framework.Quietly())
	})
	p := start(t, append(append([]string{"discover"}, connArgs(srv.ConnectString())...), "--base", base, "api")...)
	if code := p.wait(t); code != 0 || !strings.Contains(p.stderr.String(), "warning: skipped "+bad) || p.stdout.String() != "" {
		t.Errorf("discover: status %d, stdout %q, stderr %q; want 0, nothing and a warning naming %s", code, p.stdout.String(), p.stderr.String(), bad)
	}
}

// TestRegisterSSLPortOutOfRange: --ssl-port outside 0..65535 is a usage
// error before connecting, as --port is.
func TestRegisterSSLPortOutOfRange(t *testing.T) {
	for _, port := range []string{"70000", "-5"} {
		code, stderr := runTool(t, "register", "--connect", closedAddr(t), "--address", "10.0.0.1", "--port", "80", "--ssl-port", port, "api", "--", "true")
		if code != exitUsage || !strings.Contains(stderr, "bad --ssl-port "+port) {
			t.Errorf("--ssl-port %s: status %d, stderr %q; want %d and a line naming the value", port, code, stderr, exitUsage)
		}
	}
}

// TestReadLockSkipsAVanishedUnfairHolderNode: the unfair driver's holder
// node listed but deleted before it is read (its holder released) is
// skipped, as any vanished contender node, not reported as missing.
func TestReadLockSkipsAVanishedUnfairHolderNode(t *testing.T) {
	srv := sharedServer(t)
	c := testClient(t, srv.ConnectString())
	ctx := testCtx(t)
	dir := testPath(t)
	waiter := dir + "/_c_00000000-0000-0000-0000-000000000000-lock-u123456"
	if _, err := c.Create(ctx, waiter, nil, framework.WithMode(framework.Ephemeral), framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), dir, framework.DeletingChildrenIfNeeded(), framework.Quietly())
	})
	kids := []string{locks.UnfairHolderNodeName, filepath.Base(waiter)}
	cs, err := readLock(ctx, c, dir, kids)
	if err != nil {
		t.Fatalf("readLock with the holder node gone: %v", err)
	}
	if len(cs.nodes) != 1 || cs.nodes[0].path != waiter || cs.nodes[0].holds {
		t.Errorf("contenders %+v, want the one waiter, not holding", cs.nodes)
	}
}
