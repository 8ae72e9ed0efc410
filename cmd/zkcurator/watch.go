package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

var watchCommand = &command{
	name:     "watch",
	synopsis: "[flags] PATH",
	summary:  "print each change of a node, or of a tree, as a JSON line",
	help: `Sets a persistent watch (ZooKeeper 3.6 or later) on PATH and prints one
JSON line per change the server reports, in its order, until interrupted:
{"type":"NodeCreated","path":"/app/x"}, the type one of NodeCreated,
NodeDeleted, NodeDataChanged and NodeChildrenChanged. Without --recursive it
watches PATH alone: its creation, deletion, data and children. With
--recursive it watches PATH and every node below it: their creation,
deletion and data (ZooKeeper sends no NodeChildrenChanged then). PATH need
not exist. Paths are relative to --namespace and the chroot.

After a reconnect or in a new session the watch is set again and
{"type":"Reset","path":PATH} is printed: changes may have been missed before
it, so read the state again.

With --data a NodeCreated or NodeDataChanged line carries the node's data
as a getData reads it just after the event, so it may be a later version
than the event's: as "data", a string, when it is UTF-8 (as the other
subcommands print data), else as "dataBase64"; neither when the node was
gone by then, or could not be read (a warning on stderr says why).

SIGINT, SIGTERM or SIGHUP end it with status 128+N. A server older than
3.6 exits with status 69.`,
	positional: 1,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		var f watchFlags
		fs.BoolVar(&f.recursive, "recursive", false, "watch PATH and every node below it (a persistent recursive watch), not PATH alone")
		fs.BoolVar(&f.data, "data", false, "add the node's data, as read just after the event, to NodeCreated and NodeDataChanged lines: \"data\" when UTF-8, else \"dataBase64\"")
		return func(ctx context.Context, out io.Writer, args []string) error {
			return watchRun(ctx, conn, f, args[0], out)
		}
	},
}

// watchFlags are the flags of 'watch'.
type watchFlags struct {
	recursive bool
	data      bool
}

// mode is the persistent watch the flags ask for.
func (f watchFlags) mode() framework.AddWatchMode {
	if f.recursive {
		return framework.WatchPersistentRecursive
	}
	return framework.WatchPersistent
}

// watchRun watches path and prints its events until a signal ends it.
func watchRun(ctx context.Context, conn *connFlags, f watchFlags, path string, out io.Writer) error {
	if err := checkPath("PATH", path); err != nil {
		return fail(exitUsage, "watch: %v", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctx, stopWatch := interruptible(ctx, sigs)
	defer stopWatch()
	interrupted := func(while string) error {
		if sig := stopWatch(); sig != nil {
			return fail(signalStatus(sig), "watch: interrupted by %s%s", signalName(sig), while)
		}
		return nil
	}
	log := newLogger(conn.verbose)
	defer func() { _ = log.Sync() }()
	c, err := conn.dial(ctx, log)
	if err != nil {
		if ierr := interrupted(" while connecting to ZooKeeper"); ierr != nil {
			return ierr
		}
		return err
	}
	defer closeClient(c, 6*time.Second, log)

	w, err := c.AddWatch(ctx, path, f.mode())
	if err != nil {
		if ierr := interrupted(" while setting the watch on " + path); ierr != nil {
			return ierr
		}
		return addWatchError(conn.connect, path, err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = w.Close(cctx)
	}()
	log.Info("watching", zap.String("path", path), zap.Stringer("mode", f.mode()))

	p := &watchPrinter{out: out, warn: os.Stderr, root: path}
	if f.data {
		p.read = c
	}
	for {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				return fail(exitUnavailable, "watch %s: the ZooKeeper client closed", path)
			}
			if err := p.print(ctx, ev); err != nil {
				if ierr := interrupted(""); ierr != nil {
					return ierr
				}
				return fail(exitInternal, "watch: write: %v", err)
			}
		case <-ctx.Done():
			if ierr := interrupted(""); ierr != nil {
				return ierr
			}
			return ctx.Err()
		}
	}
}

// addWatchError is the error for an AddWatch on path that failed with err.
func addWatchError(connect, path string, err error) error {
	switch {
	case errors.Is(err, framework.ErrPersistentWatchUnsupported):
		return fail(exitUnavailable, "watch %s: ZooKeeper at %s does not support persistent watches (addWatch needs ZooKeeper 3.6 or later)", path, connect)
	case errors.Is(err, framework.ErrInvalidArgument):
		return fail(exitUsage, "watch: %v", err)
	case refused(err):
		return noPermission("watch "+path, err)
	}
	return fail(exitUnavailable, "watch %s: %v", path, err)
}
