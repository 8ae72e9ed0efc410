package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// holdFlags are the flags of the subcommands that run a command under a
// lock or lease.
type holdFlags struct {
	wait  optionalDuration
	grace time.Duration
	data  string
}

// add adds the flags to fs; withData adds --data, for the subcommands whose
// node data the user chooses.
func (f *holdFlags) add(fs *flag.FlagSet, withData bool) {
	fs.Var(&f.wait, "wait", "give up (status 75) when not granted within this `duration`, connecting included (status 69 when ZooKeeper was not reached by then); connecting gets at least 1s; 0 tries once (default: wait for as long as it takes)")
	f.grace = 10 * time.Second
	fs.Var(positiveDuration{&f.grace}, "grace", "after SIGTERM on a loss, SIGKILL the command if it still runs after this `duration`")
	if withData {
		fs.StringVar(&f.data, "data", defaultData(), "data stored in this contender's node, shown by participants")
	}
}

// revocableMark ends the default data of a holder that listens for
// revocation (lock --revocable), so that 'zkcurator revoke' can tell.
const revocableMark = ", revocable"

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// defaultData names this process in its node: host and pid.
func defaultData() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return fmt.Sprintf("zkcurator on %s pid %d", host, os.Getpid())
}

// acquirer takes a lock or lease on a connected client, waiting at most
// wait when --wait is set (0: one try). It returns what was taken and how
// to give it back, or a nil release when the wait elapsed.
type acquirer func(ctx context.Context, c *framework.Client, wait optionalDuration) (h hold, release func(context.Context) error, err error)

// runUnder connects, takes what acquire takes, runs args under it and gives
// it back. SIGINT, SIGTERM and SIGHUP while waiting cancel the wait; while
// the command runs they are passed on to it.
func runUnder(ctx context.Context, conn *connFlags, f *holdFlags, what string, args []string, acquire acquirer) error {
	cmd, err := newChild(args)
	if err != nil {
		return err
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	log := newLogger(conn.verbose)
	defer func() { _ = log.Sync() }()

	wctx, stopWatch := interruptible(ctx, sigs)
	w := f.newWaitBound(conn.connectTimeout)
	client, err := conn.dialWithin(wctx, log, w.dial, w.flag)
	if err != nil {
		if sig := stopWatch(); sig != nil {
			return fail(signalStatus(sig), "interrupted by %s while connecting to ZooKeeper", signalName(sig))
		}
		return err
	}
	closePatience := 6 * time.Second
	defer func() { closeClient(client, closePatience, log) }()

	log.Info("waiting for the " + what)
	actx, cancel := w.acquireContext(wctx)
	h, release, err := acquire(actx, client, w.remaining())
	cancel()
	if sig := stopWatch(); sig != nil {
		if release != nil {
			giveBack(release, time.Second, what, log)
		}
		return fail(signalStatus(sig), "interrupted by %s while waiting for the %s", signalName(sig), what)
	}
	var exit *exitError
	switch {
	case errors.As(err, &exit):
		return err
	case refused(err):
		return noPermission("acquire the "+what, err)
	case err != nil && !w.elapsed(err):
		return fail(exitUnavailable, "acquire the %s: %v", what, err)
	case release == nil || err != nil:
		// Closing may wait on a connection that does not answer: the
		// caller asked to be done within --wait.
		closePatience = waitClosePatience
		return fail(exitTimeout, "%s not acquired within %v", what, f.wait.d)
	}
	h.what = what
	log.Info("acquired the "+what, zap.String("node", h.node), zap.Int64("fencingToken", h.token))
	err = runChild(cmd, h, f.grace, sigs, log)
	patience := 10 * time.Second
	if exitCode(err) == exitLost {
		// The connection is likely down: do not keep the caller waiting.
		patience, closePatience = time.Second, time.Second
	}
	giveBack(release, patience, what, log)
	return err
}

// closeClient closes the client, waiting at most patience: zkcurator is
// about to exit, and go-zookeeper may take ten times the session timeout to
// give up a handshake with an unresponsive server. Ephemeral nodes a close
// that does not finish leaves behind go when the session expires.
func closeClient(c *framework.Client, patience time.Duration, log *zap.Logger) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.Close()
	}()
	select {
	case <-done:
	case <-time.After(patience):
		log.Warn("the ZooKeeper client did not close in time; exiting anyway", zap.Duration("waited", patience))
	}
}

// giveBack releases what was held, waiting at most patience; a failure is
// logged (the node goes with the session when the client closes, or, with
// --ttl, with its TTL).
func giveBack(release func(context.Context) error, patience time.Duration, what string, log *zap.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := release(ctx); err != nil && !errors.Is(err, locks.ErrNotOwner) {
		log.Warn("release the "+what, zap.Error(err))
		return
	}
	log.Info("released the " + what)
}

// interruptible returns a context that is cancelled when a signal arrives on
// sigs, and a stop function that ends the watch and returns that signal, or
// nil when none came.
func interruptible(parent context.Context, sigs <-chan os.Signal) (context.Context, func() os.Signal) {
	ctx, cancel := context.WithCancel(parent)
	quit := make(chan struct{})
	done := make(chan os.Signal, 1)
	go func() {
		select {
		case sig := <-sigs:
			cancel()
			done <- sig
		case <-quit:
			done <- nil
		}
	}()
	var got os.Signal
	stopped := false
	return ctx, func() os.Signal {
		if !stopped {
			stopped = true
			close(quit)
			got = <-done
			cancel()
		}
		return got
	}
}
