package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// binary is the zkcurator binary the tests run, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "zkcurator-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "zkcurator")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	code := m.Run()
	if shared.srv != nil {
		if err := shared.srv.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing the shared ZooKeeper: %v\n", err)
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return code
}

// shared is one ZooKeeper (with TTL nodes) for every test; tests use paths of
// their own.
var shared struct {
	once sync.Once
	srv  *zktest.Server
	err  error
}

func sharedServer(t *testing.T) *zktest.Server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = zktest.NewServer(zktest.WithExtendedTypes()) })
	if shared.err != nil {
		t.Fatalf("cannot start ZooKeeper for the tests: %v", shared.err)
	}
	return shared.srv
}

// testWait bounds every wait of a test.
const testWait = 20 * time.Second

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// testPath returns a lock path unique to the test.
func testPath(t *testing.T) string {
	return "/cli/" + unsafeChars.ReplaceAllString(t.Name(), "_")
}

// proc is a running zkcurator. Its output goes to files, so that a process
// its command left behind holding them cannot delay the wait.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr output
	done           chan struct{}
	code           int
}

// output is a file that a process writes and the test reads.
type output struct{ f *os.File }

// String returns what was written so far.
func (o output) String() string {
	b, err := os.ReadFile(o.f.Name())
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// start runs zkcurator with args, stdin from /dev/null (so its command gets a
// process group of its own). The test's end kills it if it still runs.
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	return startEnv(t, nil, args...)
}

// startEnv is start with env added to zkcurator's environment.
func startEnv(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary, args...), done: make(chan struct{})}
	dir := t.TempDir()
	for _, o := range []*output{&p.stdout, &p.stderr} {
		f, err := os.CreateTemp(dir, "out")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		o.f = f
	}
	p.cmd.Stdout, p.cmd.Stderr = p.stdout.f, p.stderr.f
	p.cmd.Env = append(append(os.Environ(), "ZK_CONNECT=", "ZK_AUTH=", "ZK_TLS_CA=", "ZK_TLS_CERT=", "ZK_TLS_KEY="), env...)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", binary, err)
	}
	go func() {
		_ = p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			killTree(p.cmd.Process.Pid)
			<-p.done
		}
	})
	return p
}

// wait waits for zkcurator to exit and returns its status.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(testWait):
		t.Fatalf("zkcurator %q still runs after %v", p.cmd.Args[1:], testWait)
		return -1
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// runTool runs zkcurator to the end and returns its status and stderr.
func runTool(t *testing.T, args ...string) (int, string) {
	t.Helper()
	p := start(t, args...)
	code := p.wait(t)
	return code, p.stderr.String()
}

// connArgs are the flags that point zkcurator at connect quickly.
func connArgs(connect string) []string {
	return []string{"--connect", connect, "--session-timeout", "2s", "--connect-timeout", "5s"}
}

// eventually polls cond every 10ms until it holds, failing the test after testWait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", testWait, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readLines returns the lines of file, none when it does not exist.
func readLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// hasLine reports whether file has the line want.
func hasLine(t *testing.T, file, want string) bool {
	for _, l := range readLines(t, file) {
		if l == want {
			return true
		}
	}
	return false
}

func testCtx(t *testing.T) context.Context { return zktest.Context(t, testWait) }
