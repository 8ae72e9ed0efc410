package demo

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

// EnvConnect is the environment variable that names the ensemble to use
// ("host:port,host:port"). When it is unset the demos start an embedded
// ZooKeeper of their own.
const EnvConnect = "ZK_CONNECT"

// programTimeout bounds a whole program, so that nothing waits forever.
const programTimeout = 3 * time.Minute

// Ensemble returns the connect string in ZK_CONNECT or, when that is unset,
// starts an embedded ZooKeeper on 127.0.0.1 and returns its address. The
// returned stop shuts the embedded server down (it does nothing for an
// ensemble given in ZK_CONNECT). It says on out which one it uses.
func Ensemble(out io.Writer) (connect string, stop func() error, err error) {
	if env := strings.TrimSpace(os.Getenv(EnvConnect)); env != "" {
		fmt.Fprintf(out, "using the ZooKeeper ensemble in %s: %s\n", EnvConnect, env)
		return env, func() error { return nil }, nil
	}
	fmt.Fprintf(out, "%s is not set: starting an embedded ZooKeeper ...\n", EnvConnect)
	began := time.Now()
	srv, err := zktest.NewServer()
	if err != nil {
		if errors.Is(err, zktest.ErrNotInstalled) {
			return "", nil, fmt.Errorf("%w\n(run `make demo`, which installs it, or set %s to an ensemble)", err, EnvConnect)
		}
		return "", nil, err
	}
	fmt.Fprintf(out, "embedded ZooKeeper ready at %s after %.1fs\n", srv.ConnectString(), time.Since(began).Seconds())
	return srv.ConnectString(), srv.Close, nil
}

// Main runs one demo as a program: it finds the ensemble (see Ensemble), runs
// the demo with a bounded time and exits with status 1, after saying why on
// standard error, when the demo fails or its invariant does not hold.
// Interrupting the program cancels the demo.
func Main(run func(ctx context.Context, connect string, out io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := mainErr(ctx, os.Stdout, run)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAILED:", err)
		os.Exit(1)
	}
}

func mainErr(ctx context.Context, out io.Writer, run func(ctx context.Context, connect string, out io.Writer) error) error {
	ctx, cancel := context.WithTimeout(ctx, programTimeout)
	defer cancel()
	connect, stopServer, err := Ensemble(out)
	if err != nil {
		return err
	}
	return errors.Join(run(ctx, connect, out), stopServer())
}
