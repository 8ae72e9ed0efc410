package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestElectRunsOneLeaderAtATime starts three elect instances on one path at
// once: their commands must run one after the other, each on its latch node
// with a larger fencing token than the one before. While one leads, another
// with --wait gives up with status 75 without running its command.
func TestElectRunsOneLeaderAtATime(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	file := filepath.Join(t.TempDir(), "log")
	conn := connArgs(srv.ConnectString())

	var procs []*proc
	for i := range 3 {
		name := "cmd" + strconv.Itoa(i)
		procs = append(procs, start(t, append(append([]string{"elect", "--id", name}, conn...), path, "--", "sh", "-c", holdScript, name, file)...))
	}
	for i, p := range procs {
		if code := p.wait(t); code != 0 {
			t.Fatalf("instance %d exited with %d; stderr: %s", i, code, p.stderr.String())
		}
	}
	checkAlternating(t, readLines(t, file), path, 3)
	for _, line := range readLines(t, file) {
		if f := strings.Fields(line); f[0] == "start" && !strings.Contains(filepath.Base(f[3]), "latch-") {
			t.Errorf("%s led through %q, want a latch- node", f[1], f[3])
		}
	}

	leaderFile := filepath.Join(t.TempDir(), "leader")
	leader := start(t, append(append([]string{"elect", "--id", "leader"}, conn...), path, "--", "sh", "-c", loopScript, "leader", leaderFile)...)
	eventually(t, "the leader's command to start", func() bool { return hasLine(t, leaderFile, "start leader") })
	code, stderr := runTool(t, append(append([]string{"elect", "--id", "late", "--wait", "300ms"}, conn...), path, "--", "sh", "-c", holdScript, "late", leaderFile)...)
	if code != exitTimeout {
		t.Fatalf("--wait 300ms while another leads: exit status %d, want %d; stderr: %s", code, exitTimeout, stderr)
	}
	if hasLine(t, leaderFile, "start late") {
		t.Fatal("the late participant ran its command while another led")
	}
	began := time.Now()
	if err := leader.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := leader.wait(t); code != 3 {
		t.Fatalf("the leader exited with %d after SIGTERM, want its command's 3; stderr: %s", code, leader.stderr.String())
	}
	t.Logf("the leader stepped down %v after SIGTERM", time.Since(began))
}

// TestElectBadInput: a missing --id is a usage error.
func TestElectBadInput(t *testing.T) {
	conn := connArgs("127.0.0.1:1")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(append([]string{"elect"}, conn...), "/jobs", "--", "true"), "missing --id"},
	} {
		code, stderr := runTool(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("zkcurator %s: status %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, stderr, exitUsage, tc.want)
		}
	}
}

// TestElectWaitZero: --wait 0 leads when no one else takes part, and gives
// up at once with status 75, running nothing, while another leads.
func TestElectWaitZero(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	file := filepath.Join(t.TempDir(), "log")
	conn := connArgs(srv.ConnectString())
	if code, stderr := runTool(t, append(append([]string{"elect", "--id", "alone", "--wait", "0"}, conn...), path, "--", "sh", "-c", holdScript, "alone", file)...); code != 0 {
		t.Fatalf("--wait 0 with no one else: status %d, want 0; stderr: %s", code, stderr)
	}
	leader := start(t, append(append([]string{"elect", "--id", "leader"}, conn...), path, "--", "sh", "-c", loopScript, "leader", file)...)
	eventually(t, "the leader's command to start", func() bool { return hasLine(t, file, "start leader") })
	began := time.Now()
	code, stderr := runTool(t, append(append([]string{"elect", "--id", "late", "--wait", "0s"}, conn...), path, "--", "sh", "-c", holdScript, "late", file)...)
	if code != exitTimeout || !strings.Contains(stderr, "not acquired within 0s") {
		t.Errorf("--wait 0 while another leads: status %d, stderr %q; want %d", code, stderr, exitTimeout)
	}
	t.Logf("gave up after %v", time.Since(began))
	if hasLine(t, file, "start late") {
		t.Error("the late participant ran its command while another led")
	}
	if err := leader.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	leader.wait(t)
}
