// setup.go holds what this program does around its lesson: finding
// ZooKeeper (ZK_CONNECT, or an embedded server from testing/zktest) and
// bounding the run's time. Copy it with main.go, or use your own.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

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
