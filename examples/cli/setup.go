// setup.go holds what this program does around its lesson: finding
// ZooKeeper (ZK_CONNECT, or an embedded server from testing/zktest), a
// namespace of its own for each run, and time-stamped narration. Copy it
// with main.go, or use your own.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// envConnect names the ensemble to use ("host:port,host:port"). When it is
// unset the program starts an embedded ZooKeeper of its own (testing/zktest).
const envConnect = "ZK_CONNECT"

// programTimeout bounds the whole program, so that nothing waits forever.
const programTimeout = 3 * time.Minute

// runProgram finds the ensemble (see ensemble), calls run with a bounded
// time and exits with status 1, after saying why on standard error, when run
// fails or the promise it checks did not hold. Interrupting the program
// cancels run.
func runProgram(run func(ctx context.Context, connect string, out io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(ctx, programTimeout)
	err := func() error {
		connect, stopServer, err := ensemble(os.Stdout)
		if err != nil {
			return err
		}
		return errors.Join(run(ctx, connect, os.Stdout), stopServer())
	}()
	cancel()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAILED:", err)
		os.Exit(1)
	}
}

// ensemble returns the connect string in ZK_CONNECT or, when that is unset,
// starts an embedded ZooKeeper on 127.0.0.1 and returns its address. stop
// shuts the embedded server down (it does nothing for an ensemble given in
// ZK_CONNECT). It says on out which one it uses.
func ensemble(out io.Writer) (connect string, stop func() error, err error) {
	if env := strings.TrimSpace(os.Getenv(envConnect)); env != "" {
		fmt.Fprintf(out, "using the ZooKeeper ensemble in %s: %s\n", envConnect, env)
		return env, func() error { return nil }, nil
	}
	fmt.Fprintf(out, "%s is not set: starting an embedded ZooKeeper ...\n", envConnect)
	began := time.Now()
	srv, err := zktest.NewServer()
	if err != nil {
		if errors.Is(err, zktest.ErrNotInstalled) {
			return "", nil, fmt.Errorf("%w\n(run `make demo`, which installs it, or set %s to an ensemble)", err, envConnect)
		}
		return "", nil, err
	}
	fmt.Fprintf(out, "embedded ZooKeeper ready at %s after %.1fs\n", srv.ConnectString(), time.Since(began).Seconds())
	return srv.ConnectString(), srv.Close, nil
}

// printer writes lines stamped with the time since the program began, from
// many goroutines without interleaving them: "  0.42s  worker 3 acquired".
type printer struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
}

// newPrinter returns a printer on w (nothing is printed when w is nil) whose
// clock starts now.
func newPrinter(w io.Writer) *printer {
	if w == nil {
		w = io.Discard
	}
	return &printer{w: w, start: time.Now()}
}

// Say prints one line stamped with the time since the program began.
func (p *printer) Say(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%7.2fs  %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// Title prints an unstamped heading.
func (p *printer) Title(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\n%s\n\n", fmt.Sprintf(format, args...))
}

// namespaceRoot is the parent of every example's namespace.
const namespaceRoot = "zkcurator-examples"

// cleanupWait bounds the removal of a run's namespace.
const cleanupWait = 15 * time.Second

// stage is one run's set-up: the ensemble, a namespace of its own (so that
// runs against a shared ensemble never meet) and the printer its story goes
// to. Close removes everything the run left under the namespace.
type stage struct {
	// Printer is where the run tells its story.
	Printer *printer

	connect string
	ns      string
}

// newStage returns a stage for the example called name on the ensemble at
// connect, printing to out; it does not connect.
func newStage(connect string, out io.Writer, name string) *stage {
	return &stage{
		Printer: newPrinter(out),
		connect: connect,
		ns:      fmt.Sprintf("%s/%s-%08x", namespaceRoot, name, rand.Uint32()),
	}
}

// Namespace is the namespace the run's clients work in
// (framework.WithNamespace), unique to this run.
func (s *stage) Namespace() string { return s.ns }

// Close removes the stage's namespace with a client of its own. Call it once
// the run's clients are closed.
func (s *stage) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupWait)
	defer cancel()
	c, err := framework.NewClient(s.connect, retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10})
	if err != nil {
		return
	}
	defer c.Close()
	if c.Start() != nil || c.BlockUntilConnected(ctx) != nil {
		return
	}
	_ = c.Delete(ctx, "/"+s.ns, framework.DeletingChildrenIfNeeded(), framework.Quietly())
}

// build builds the program in the package with import path pkg (of this
// module, so run from the repository) into dir and returns the binary's
// path.
func build(ctx context.Context, dir, pkg string) (string, error) {
	bin := filepath.Join(dir, path.Base(pkg))
	build := exec.CommandContext(ctx, "go", "build", "-buildvcs=false", "-o", bin, pkg)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("demo: build %s (run from the repository): %v: %s", pkg, err, strings.TrimSpace(string(b)))
	}
	return bin, nil
}
