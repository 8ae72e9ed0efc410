package interop

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildCLI builds cmd/zkcurator into a directory of the test and returns
// the binary's path.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "zkcurator")
	build := exec.Command("go", "build", "-o", bin, "github.com/zkcurator/zkcurator/cmd/zkcurator")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/zkcurator: %v\n%s", err, out)
	}
	return bin
}

// TestCLIAndCuratorExclude checks the command-line tool beside Curator's
// InterProcessMutex on one path: while Curator holds the lock, zkcurator lock
// --wait gives up with status 75 and zkcurator lock without --wait runs its
// command only after Curator released; while zkcurator's command runs,
// Curator cannot acquire.
func TestCLIAndCuratorExclude(t *testing.T) {
	bin := buildCLI(t)
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 40*time.Second)
	const path = "/interop/cli"
	dir := t.TempDir()
	ran, stop := filepath.Join(dir, "ran"), filepath.Join(dir, "stop")
	tool := func(args ...string) *exec.Cmd {
		all := append([]string{"lock", "--connect", srv.ConnectString(), "--session-timeout", "2s"}, args...)
		return exec.CommandContext(ctx, bin, all...)
	}

	if err := java.Mutex(ctx, "m", path); err != nil {
		t.Fatal(err)
	}
	if _, err := java.Acquire(ctx, "m", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	out, err := tool("--wait", "300ms", path, "--", "touch", ran).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 75 || !strings.Contains(string(out), "not acquired within 300ms") {
		t.Fatalf("zkcurator lock --wait beside a Curator holder: %v, output %q; want status 75", err, out)
	}

	waiter := tool(path, "--", "sh", "-c", `touch "$0"; while [ ! -e "$1" ]; do sleep 0.05; done`, ran, stop)
	if err := waiter.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- waiter.Wait() }()
	obs.waitChildren(ctx, path, 2)
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("zkcurator ran its command while Curator held the lock")
	}
	if _, err := java.Release(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "zkcurator's command to run", func() (bool, error) {
		_, err := os.Stat(ran)
		return err == nil, nil
	})

	if _, err := java.Acquire(ctx, "m", 300*time.Millisecond); !errors.Is(err, ErrNotAcquired) {
		t.Fatalf("Curator's acquire while zkcurator's command runs: %v, want %v", err, ErrNotAcquired)
	}
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("zkcurator lock: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("zkcurator lock did not exit after its command")
	}
	if _, err := java.Acquire(ctx, "m", 5*time.Second); err != nil {
		t.Fatalf("Curator's acquire after zkcurator exited: %v", err)
	}
	if _, err := java.Release(ctx, "m"); err != nil {
		t.Fatal(err)
	}
}
