package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedAddr returns a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestBadInput checks that bad input and an unreachable ensemble end
// zkcurator with the documented status and one line on stderr that names
// what was wrong, never a stack trace, and that no command runs.
func TestBadInput(t *testing.T) {
	srv := sharedServer(t)
	closed := closedAddr(t)
	good := []string{"--connect", srv.ConnectString()}
	unreachable := []string{"--connect", closed, "--connect-timeout", "300ms"}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no subcommand", nil, exitUsage, "no subcommand"},
		{"unknown subcommand", []string{"frob"}, exitUsage, `unknown subcommand "frob"`},
		{"missing path", []string{"lock"}, exitUsage, "missing PATH"},
		{"missing command", append([]string{"lock", "/p"}, good...), exitUsage, "missing the command to run after /p"},
		{"relative path", append([]string{"lock", "p"}, append(good, "--", "true")...), exitUsage, `bad PATH "p"`},
		{"bad path", append([]string{"lock", "/a//b"}, append(good, "--", "true")...), exitUsage, `bad PATH "/a//b"`},
		{"bad duration", append([]string{"lock", "--wait", "5x", "/p"}, append(good, "--", "true")...), exitUsage, `invalid value "5x" for flag -wait`},
		{"negative wait", append([]string{"lock", "--wait", "-1s", "/p"}, append(good, "--", "true")...), exitUsage, `invalid value "-1s" for flag -wait`},
		{"zero session timeout", append([]string{"lock", "--session-timeout", "0s", "/p"}, append(good, "--", "true")...), exitUsage, "-session-timeout"},
		{"unknown flag", append([]string{"lock", "--fast", "/p"}, append(good, "--", "true")...), exitUsage, "-fast"},
		{"two kinds of lock", append([]string{"lock", "--unfair", "--read", "/p"}, append(good, "--", "true")...), exitUsage, "exclude each other"},
		{"bad ttl", append([]string{"lock", "--ttl", "1.5ms", "/p"}, append(good, "--", "true")...), exitUsage, "bad --ttl 1.5ms"},
		{"zero leases", append([]string{"semaphore", "--leases", "0", "/p"}, append(good, "--", "true")...), exitUsage, `invalid value "0" for flag -leases`},
		{"missing leases", append([]string{"semaphore", "/p"}, append(good, "--", "true")...), exitUsage, "missing --leases"},
		{"no ensemble", []string{"lock", "/p", "--", "true"}, exitUsage, "set --connect or ZK_CONNECT"},
		{"bad chroot in connect string", []string{"lock", "--connect", "zk1:2181/app/", "/p", "--", "true"}, exitUsage, `bad --connect "zk1:2181/app/": chroot "/app/"`},
		{"extra argument", append([]string{"revoke", "/p/n", "more"}, good...), exitUsage, `unexpected argument "more"`},
		{"command not found", append([]string{"lock", "/p"}, append(good, "--", "no-such-command-zkcurator")...), exitCommandNotFound, `command "no-such-command-zkcurator" not found`},
		{"unreachable lock", append([]string{"lock", "/p"}, append(unreachable, "--", "true")...), exitUnavailable, "cannot reach ZooKeeper at " + closed + " within 300ms"},
		{"unreachable semaphore", append([]string{"semaphore", "--leases", "2", "/p"}, append(unreachable, "--", "true")...), exitUnavailable, "cannot reach ZooKeeper at " + closed},
		{"unreachable participants", append([]string{"participants", "/p"}, unreachable...), exitUnavailable, "cannot reach ZooKeeper at " + closed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stderr := runTool(t, c.args...)
			if code != c.code {
				t.Errorf("zkcurator %q exited with %d, want %d; stderr: %s", c.args, code, c.code, stderr)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "zkcurator: ") || !strings.Contains(lines[0], c.want) {
				t.Errorf("stderr is %q, want one line starting with \"zkcurator: \" that contains %q", stderr, c.want)
			}
		})
	}
}

// TestHelp checks that -h on every level exits 0 and points to 'zkcurator
// help exit-codes', which prints the exit status table, and that no flag
// reads both "required" and a default.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"lock", "-h"}, {"semaphore", "--help"}, {"elect", "-h"}, {"participants", "-h"}, {"revoke", "-h"}, {"help", "lock"}} {
		p := start(t, args...)
		if code := p.wait(t); code != 0 {
			t.Errorf("zkcurator %q exited with %d, want 0", args, code)
		}
		out := p.stdout.String()
		for _, want := range []string{"Usage:", "zkcurator help exit-codes"} {
			if !strings.Contains(out, want) {
				t.Errorf("zkcurator %q prints no %q:\n%s", args, want, out)
			}
		}
		if strings.Contains(out, "required) (default") {
			t.Errorf("zkcurator %q shows a default for a required flag:\n%s", args, out)
		}
	}
	p := start(t, "help", "exit-codes")
	if code := p.wait(t); code != 0 {
		t.Errorf("zkcurator help exit-codes exited with %d, want 0", code)
	}
	for _, code := range []int{exitNotFound, exitUsage, exitUnavailable, exitInternal, exitTimeout, exitNoPermission, exitLost, exitCannotRun, exitCommandNotFound} {
		if row := fmt.Sprintf("\n  %d ", code); !strings.Contains(p.stdout.String(), row) {
			t.Errorf("zkcurator help exit-codes has no row for %d:\n%s", code, p.stdout.String())
		}
	}
}

// TestDocsListStatuses checks that docs/cli.md's table has a row for
// every status zkcurator itself uses.
func TestDocsListStatuses(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []int{exitNotFound, exitUsage, exitUnavailable, exitInternal, exitTimeout, exitNoPermission, exitLost, exitCannotRun, exitCommandNotFound} {
		if row := fmt.Sprintf("\n| %d |", code); !strings.Contains(string(readme), row) {
			t.Errorf("docs/cli.md has no exit status row %q", strings.TrimSpace(row))
		}
	}
}

// TestCommandStatuses: a command that cannot be found exits 127 and one
// that is not executable 126, as a shell reports them, before any lock is
// taken.
func TestCommandStatuses(t *testing.T) {
	srv := sharedServer(t)
	dir := t.TempDir()
	notExec := filepath.Join(dir, "script")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\ntrue\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command string
		code    int
		want    string
	}{
		{"no-such-command-zkcurator", exitCommandNotFound, "not found"},
		{filepath.Join(dir, "none"), exitCommandNotFound, "not found"},
		{notExec, exitCannotRun, "cannot be run: permission denied"},
		{dir, exitCannotRun, "cannot be run"},
	} {
		p := start(t, append(append([]string{"lock", "--verbose"}, connArgs(srv.ConnectString())...), testPath(t), "--", tc.command)...)
		code := p.wait(t)
		stderr := p.stderr.String()
		if code != tc.code || !strings.Contains(stderr, fmt.Sprintf("command %q %s", tc.command, tc.want)) {
			t.Errorf("command %s: status %d, stderr %q; want %d and %q", tc.command, code, stderr, tc.code, tc.want)
		}
		if strings.Contains(stderr, "acquired") {
			t.Errorf("command %s: the lock was taken for a command that cannot run:\n%s", tc.command, stderr)
		}
	}
}

// TestRootRefusedEverywhere: every subcommand refuses "/" as its path with
// status 64 before connecting, with or without a namespace.
func TestRootRefusedEverywhere(t *testing.T) {
	// What must come before the path: required flags, or queue's action.
	required := map[string][]string{"semaphore": {"--leases", "1"}, "elect": {"--id", "a"}, "queue": {"take"}}
	for _, c := range commands {
		for _, ns := range [][]string{nil, {"--namespace", "app"}} {
			args := append(append(append([]string{c.name, "--connect", closedAddr(t)}, ns...), required[c.name]...), "/")
			if c.runsCommand {
				args = append(args, "--", "true")
			}
			code, stderr := runTool(t, args...)
			if code != exitUsage || !strings.Contains(stderr, `"/": the root cannot be used`) {
				t.Errorf("zkcurator %q: status %d, stderr %q; want %d and a line refusing the root", args, code, stderr, exitUsage)
			}
		}
	}
}
