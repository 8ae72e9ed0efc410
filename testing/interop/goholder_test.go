package interop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

// goHolderEnv, set to "<connect string> <lock path>", turns the test binary
// into a separate Go process that holds a zkcurator mutex (see runGoHolder), so
// that a test can kill a Go holder the way it kills a Curator helper.
const goHolderEnv = "ZKCURATOR_INTEROP_GO_HOLDER"

// runGoHolder acquires the mutex named by goHolderEnv, prints
// "HELD <node> <negotiated session timeout ms>" and keeps the lock until stdin
// closes or the process is killed. It returns the process exit code.
func runGoHolder(spec string) int {
	connect, path, ok := strings.Cut(spec, " ")
	if !ok {
		fmt.Fprintf(os.Stderr, "%s=%q: want \"<connect string> <lock path>\"\n", goHolderEnv, spec)
		return 2
	}
	c, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithSessionTimeout(goSessionTimeout), framework.WithConnectionTimeout(goSessionTimeout))
	if err == nil {
		err = c.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), acquireWait)
	defer cancel()
	m := built(locks.NewInterProcessMutex(c, path))
	if err := c.BlockUntilConnected(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := m.Acquire(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("HELD %s %d\n", m.LockPath(), c.SessionTimeout().Milliseconds())
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// goHolder is a separate Go process holding a zkcurator mutex.
type goHolder struct {
	cmd            *exec.Cmd
	node           string
	sessionTimeout time.Duration
	done           chan struct{} // closed once the process has been reaped
}

// startGoHolder starts a Go holder process for path and waits until it holds
// the lock. The process ends with the test.
func startGoHolder(t *testing.T, ctx context.Context, connect, path string) *goHolder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), goHolderEnv+"="+connect+" "+path)
	cmd.SysProcAttr = dieWithParent()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &goHolder{cmd: cmd, done: make(chan struct{})}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, stdout)
		cmd.Wait()
		close(g.done)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-g.done:
		case <-time.After(exitWait):
			cmd.Process.Kill()
			<-g.done
		}
	})
	select {
	case line := <-lines:
		var ms int64
		if _, err := fmt.Sscanf(line, "HELD %s %d", &g.node, &ms); err != nil {
			t.Fatalf("Go holder printed %q: %v", line, err)
		}
		g.sessionTimeout = time.Duration(ms) * time.Millisecond
	case <-g.done:
		t.Fatalf("Go holder exited before holding the lock: %s", stderr.String())
	case <-ctx.Done():
		t.Fatalf("Go holder did not hold the lock: %v", ctx.Err())
	}
	return g
}

// kill kills the holder with SIGKILL and waits until it is gone.
func (g *goHolder) kill(t *testing.T) {
	t.Helper()
	if err := g.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.done:
	case <-time.After(exitWait):
		t.Fatal("Go holder did not die after SIGKILL")
	}
}
