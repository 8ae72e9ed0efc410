package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
)

// TestChrootLock: a connect string with a chroot suffix, as the Java client
// takes it, confines the lock to the chroot: the command sees the lock node
// relative to the chroot, and the node lands under the chroot on the server.
// A chroot that does not exist fails the lock, naming it.
func TestChrootLock(t *testing.T) {
	srv := sharedServer(t)
	c := testClient(t, srv.ConnectString())
	chroot := testPath(t)
	if _, err := c.Create(testCtx(t), chroot, nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file, stop := filepath.Join(dir, "node"), filepath.Join(dir, "stop")
	args := append([]string{"lock"}, connArgs(srv.ConnectString()+chroot)...)
	p := start(t, append(args, "/job", "--", "sh", "-c",
		`echo "$ZKCURATOR_LOCK_NODE" > "$0.tmp" && mv "$0.tmp" "$0"; while [ ! -e "$1" ]; do sleep 0.05; done`, file, stop)...)
	eventually(t, "the command to run under the lock", func() bool { return len(readLines(t, file)) == 1 })
	node := readLines(t, file)[0]
	if !strings.HasPrefix(node, "/job/") {
		t.Errorf("ZKCURATOR_LOCK_NODE %q, want a node under /job, relative to the chroot", node)
	}
	if st, err := c.Exists(testCtx(t), chroot+node); err != nil || st == nil {
		t.Errorf("%s on the server: stat %v, err %v; want the lock node under the chroot", chroot+node, st, err)
	}
	if st, err := c.Exists(testCtx(t), node); err != nil || st != nil {
		t.Errorf("%s outside the chroot: stat %v, err %v; want no node", node, st, err)
	}
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("lock under a chroot exited with %d: %s", code, p.stderr.String())
	}

	args = append([]string{"lock"}, connArgs(srv.ConnectString()+chroot+"-missing")...)
	code, stderr := runTool(t, append(args, "--wait", "2s", "/job", "--", "true")...)
	if code != exitUnavailable || !strings.Contains(stderr, chroot+"-missing") {
		t.Errorf("lock under a missing chroot: status %d, stderr %q; want %d naming the chroot", code, stderr, exitUnavailable)
	}

	code, stderr = runTool(t, "lock", "--connect", srv.ConnectString()+"/bad//chroot", "/job", "--", "true")
	if code != exitUsage || !strings.Contains(stderr, `chroot "/bad//chroot"`) {
		t.Errorf("a bad chroot: status %d, stderr %q; want %d naming it", code, stderr, exitUsage)
	}
}
