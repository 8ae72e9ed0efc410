package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// holdScript, run by sh with $0 a name and $1 a file, appends a start line
// (with the environment zkcurator gives), holds for a moment and appends an
// end line.
const holdScript = `echo "start $0 $ZKCURATOR_FENCING_TOKEN $ZKCURATOR_LOCK_NODE" >> "$1"; sleep 0.1; echo "end $0" >> "$1"`

// loopScript, run by sh with $0 a name and $1 a file, appends "start NAME",
// then runs until SIGTERM, on which it appends "term NAME" and exits with
// status 3.
const loopScript = `echo "start $0" >> "$1"; trap 'echo "term $0" >> "$1"; exit 3' TERM; while :; do sleep 0.05; done`

// TestInstancesNeverOverlap starts four zkcurator instances on one path at
// once, with each kind of lock: their commands' start and end lines must
// alternate (no two commands ran at once), each command must get its lock
// node, and the fencing tokens must increase from one holder to the next.
func TestInstancesNeverOverlap(t *testing.T) {
	srv := sharedServer(t)
	for _, kind := range []struct {
		name  string
		flags []string
	}{
		{"fair", nil},
		{"unfair", []string{"--unfair"}},
		{"write", []string{"--write"}},
		{"ttl", []string{"--ttl", "10s"}},
	} {
		t.Run(kind.name, func(t *testing.T) {
			path := testPath(t)
			file := filepath.Join(t.TempDir(), "log")
			var procs []*proc
			for i := range 4 {
				args := append([]string{"lock"}, connArgs(srv.ConnectString())...)
				args = append(append(args, kind.flags...), path, "--", "sh", "-c", holdScript, "cmd"+strconv.Itoa(i), file)
				procs = append(procs, start(t, args...))
			}
			for i, p := range procs {
				if code := p.wait(t); code != 0 {
					t.Fatalf("instance %d exited with %d; stderr: %s", i, code, p.stderr.String())
				}
			}
			checkAlternating(t, readLines(t, file), path, 4)
		})
	}
}

// checkAlternating checks that lines are n pairs "start NAME TOKEN NODE",
// "end NAME", with node under path and tokens increasing.
func checkAlternating(t *testing.T, lines []string, path string, n int) {
	t.Helper()
	if len(lines) != 2*n {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), 2*n, strings.Join(lines, "\n"))
	}
	var last int64
	for i := 0; i < len(lines); i += 2 {
		f := strings.Fields(lines[i])
		if len(f) != 4 || f[0] != "start" || lines[i+1] != "end "+f[1] {
			t.Fatalf("line %d: %q then %q, want a start and the same command's end (two commands ran at once):\n%s",
				i+1, lines[i], lines[i+1], strings.Join(lines, "\n"))
		}
		token, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || token <= last {
			t.Errorf("%s got fencing token %q after %d, want a larger number", f[1], f[2], last)
		}
		last = token
		if !strings.HasPrefix(f[3], path+"/") {
			t.Errorf("%s got lock node %q, want one under %s", f[1], f[3], path)
		}
	}
}

// TestWaitGivesUp checks --wait: while another instance holds the lock, a
// second one gives up with status 75 after the wait (and at once with
// --wait 0) without running its command. SIGTERM to the holder reaches its
// command, whose status the holder exits with; the lock is then free.
func TestWaitGivesUp(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	file := filepath.Join(t.TempDir(), "log")
	conn := connArgs(srv.ConnectString())
	holder := start(t, append(append([]string{"lock"}, conn...), path, "--", "sh", "-c", loopScript, "holder", file)...)
	eventually(t, "the holder's command to start", func() bool { return hasLine(t, file, "start holder") })

	for _, wait := range []string{"300ms", "0s"} {
		began := time.Now()
		code, stderr := runTool(t, append(append([]string{"lock", "--wait", wait}, conn...), path, "--", "sh", "-c", holdScript, "waiter", file)...)
		took := time.Since(began)
		if code != exitTimeout {
			t.Fatalf("--wait %s: exit status %d, want %d; stderr: %s", wait, code, exitTimeout, stderr)
		}
		if want := "lock " + path + " not acquired within " + wait; !strings.Contains(stderr, want) {
			t.Errorf("--wait %s: stderr %q lacks %q", wait, stderr, want)
		}
		if min, _ := time.ParseDuration(wait); took < min || took > min+5*time.Second {
			t.Errorf("--wait %s gave up after %v", wait, took)
		}
	}
	if hasLine(t, file, "end waiter") || len(readLines(t, file)) != 1 {
		t.Fatalf("a command ran without the lock: %q", readLines(t, file))
	}

	if err := holder.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := holder.wait(t); code != 3 {
		t.Errorf("the holder exited with %d after SIGTERM, want its command's 3; stderr: %s", code, holder.stderr.String())
	}
	if !hasLine(t, file, "term holder") {
		t.Errorf("the holder's command did not get the SIGTERM: %q", readLines(t, file))
	}
	if code, stderr := runTool(t, append(append([]string{"lock", "--wait", "0s"}, conn...), path, "--", "sh", "-c", "exit 7")...); code != 7 {
		t.Errorf("after the holder left, --wait 0 exited with %d, want the command's 7; stderr: %s", code, stderr)
	}
}

// TestSessionExpiryStopsCommand cuts a holder off from ZooKeeper for longer
// than its session timeout while another instance waits: the holder's
// command gets SIGTERM before the waiter's command starts, and the holder
// exits with status 79.
func TestSessionExpiryStopsCommand(t *testing.T) {
	srv := sharedServer(t)
	proxy, err := zktest.NewProxy(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	path := testPath(t)
	file := filepath.Join(t.TempDir(), "log")

	holder := start(t, "lock", "--connect", proxy.Addr(), "--session-timeout", "2s", "--connect-timeout", "2s", "--grace", "5s",
		path, "--", "sh", "-c", loopScript, "holder", file)
	eventually(t, "the holder's command to start", func() bool { return hasLine(t, file, "start holder") })
	waiter := start(t, append(append([]string{"lock"}, connArgs(srv.ConnectString())...), path, "--", "sh", "-c", `echo "start $0" >> "$1"`, "waiter", file)...)
	eventually(t, "the waiter to queue", func() bool { return countParticipants(t, srv.ConnectString(), path) == 2 })

	paused := time.Now()
	proxy.Pause()
	t.Cleanup(proxy.Resume)
	if code := waiter.wait(t); code != 0 {
		t.Fatalf("the waiter exited with %d; stderr: %s", code, waiter.stderr.String())
	}
	took := time.Since(paused)
	if code := holder.wait(t); code != exitLost {
		t.Errorf("the holder exited with %d, want %d; stderr: %s", code, exitLost, holder.stderr.String())
	}
	t.Logf("the holder exited %v after the pause", time.Since(paused))
	if ours := toolLines(holder.stderr.String()); len(ours) != 1 || !strings.Contains(ours[0], "lock "+path+" was lost") {
		t.Errorf("the holder's stderr is %q, want one line of zkcurator's saying the lock was lost", holder.stderr.String())
	}
	want := []string{"start holder", "term holder", "start waiter"}
	if got := readLines(t, file); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q: the holder's command must be told before the waiter's starts", got, want)
	}
	t.Logf("the waiter's command started %v after the pause", took)
}

// countParticipants returns the number of nodes zkcurator participants
// lists, 0 when the path does not exist.
func countParticipants(t *testing.T, connect, path string) int {
	t.Helper()
	rows, code, stderr := participants(t, connect, path)
	if code != 0 && code != exitNotFound {
		t.Fatalf("participants exited with %d; stderr: %s", code, stderr)
	}
	return len(rows)
}

// row is one line of participants' output.
type row struct{ pos, state, node, session, token, data string }

// participants runs zkcurator participants on path and returns its rows,
// status and stderr.
func participants(t *testing.T, connect, path string) ([]row, int, string) {
	t.Helper()
	p := start(t, append([]string{"participants"}, append(connArgs(connect), path)...)...)
	code := p.wait(t)
	var rows []row
	for i, l := range readLinesOf(p.stdout.String()) {
		f := strings.Fields(l)
		switch {
		case l == "":
		case i == 0:
			if strings.Join(f, " ") != "# STATE NODE SESSION TOKEN DATA" {
				t.Fatalf("participants printed the header %q", l)
			}
		case len(f) < 6:
			t.Fatalf("participants printed the row %q, want six columns", l)
		default:
			rows = append(rows, row{f[0], f[1], f[2], f[3], f[4], strings.Join(f[5:], " ")})
		}
	}
	return rows, code, p.stderr.String()
}

func readLinesOf(s string) []string {
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}

// toolLines returns the lines of stderr that zkcurator printed (its command
// may print others, such as sh's "Terminated").
func toolLines(stderr string) []string {
	var lines []string
	for _, l := range readLinesOf(stderr) {
		if strings.HasPrefix(l, "zkcurator") {
			lines = append(lines, l)
		}
	}
	return lines
}
