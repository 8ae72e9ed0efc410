package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"sync"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

var lockCommand = &command{
	name:     "lock",
	synopsis: "[flags] PATH [--] COMMAND [ARGS...]",
	summary:  "run a command while holding a lock (mutex or read/write)",
	help: `Takes the lock at PATH, runs COMMAND with stdin, stdout and stderr passed
through, releases the lock when COMMAND exits and exits with its status.
The lock is Curator's InterProcessMutex (or, with --read or --write, its
InterProcessReadWriteLock), so Java services using Curator on PATH take turns
with COMMAND. COMMAND gets ZKCURATOR_LOCK_NODE (the lock node's path) and
ZKCURATOR_FENCING_TOKEN (its czxid, larger for every later holder) in its
environment.

When holding the lock is no longer certain (the connection to ZooKeeper is
suspended, or the session expired), COMMAND gets SIGTERM, and SIGKILL after
--grace; zkcurator then exits with status 79, as it does without starting
COMMAND when the lock is lost between its grant and COMMAND's start.
SIGINT, SIGTERM and SIGHUP are passed on to COMMAND, and the lock is
released after it exits. Off a terminal COMMAND runs in a process group of
its own and signals go to the whole group; as the foreground job of a
terminal, COMMAND runs as a shell's job in the terminal's foreground, so
that Ctrl-C reaches it once and a SIGINT sent to zkcurator is passed on
(docs/cli.md).`,
	positional:  1,
	runsCommand: true,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		var f holdFlags
		f.add(fs, true)
		unfair := fs.Bool("unfair", false, "use the unfair driver: contenders get the lock in random order (still one at a time)")
		read := fs.Bool("read", false, "take the read lock of a read/write lock: readers share it")
		write := fs.Bool("write", false, "take the write lock of a read/write lock: it excludes readers and writers")
		var ttl optionalDuration
		fs.Var(&ttl, "ttl", "use persistent TTL nodes: the lock survives a lost session and frees itself this `duration` after zkcurator stops refreshing it (the server needs zookeeper.extendedTypesEnabled=true)")
		revocable := fs.Bool("revocable", false, "stop the command (as on a loss) when another process asks for the lock with 'zkcurator revoke' or Curator's Revoker; the default --data then ends in \", revocable\", which tells 'zkcurator revoke' so")
		return func(ctx context.Context, _ io.Writer, args []string) error {
			path := args[0]
			if err := checkPath("PATH", path); err != nil {
				return fail(exitUsage, "lock: %v", err)
			}
			kinds := 0
			for _, b := range []bool{*unfair, *read, *write, ttl.set} {
				if b {
					kinds++
				}
			}
			if kinds > 1 {
				return fail(exitUsage, "lock: --unfair, --read, --write and --ttl exclude each other")
			}
			var driver locks.LockInternalsDriver
			switch {
			case *unfair:
				driver = locks.UnfairLockInternalsDriver{}
			case ttl.set:
				d, err := locks.NewPersistentTTLLockInternalsDriver(ttl.d)
				if err != nil || ttl.d <= 0 {
					return fail(exitUsage, "lock: bad --ttl %v: want a whole number of milliseconds above zero", ttl.d)
				}
				driver = d
			}
			if *revocable && !flagSet(fs, "data") {
				// Tells 'zkcurator revoke' that this holder listens.
				f.data += revocableMark
			}
			what := "lock " + path
			switch {
			case *read:
				what = "read lock " + path
			case *write:
				what = "write lock " + path
			}
			return runUnder(ctx, conn, &f, what, args[1:], func(ctx context.Context, c *framework.Client, wait optionalDuration) (hold, func(context.Context) error, error) {
				m, err := newMutex(c, path, []byte(f.data), driver, *read, *write)
				if err != nil {
					return hold{}, nil, err
				}
				var revoked chan struct{}
				if *revocable {
					revoked = make(chan struct{})
					var once sync.Once
					m.MakeRevocable(func() { once.Do(func() { close(revoked) }) })
				}
				acquired := true
				if wait.set {
					acquired, err = m.TryAcquire(ctx, wait.d)
				} else {
					err = m.Acquire(ctx)
				}
				if ttl.set && errors.Is(err, framework.ErrTTLNotEnabled) {
					return hold{}, nil, fail(exitUnavailable, "the lock %s needs TTL nodes, which the ZooKeeper server does not offer: start it with zookeeper.extendedTypesEnabled=true, or drop --ttl", path)
				}
				if err != nil || !acquired {
					return hold{}, nil, err
				}
				h := hold{node: m.LockPath(), token: m.FencingToken(), lost: m.Lost(), revoked: revoked}
				return h, m.Release, nil
			})
		}
	},
}

// newMutex returns the lock the flags ask for: a read/write lock's side, or
// a mutex with driver (nil for the fair one).
func newMutex(c *framework.Client, path string, data []byte, driver locks.LockInternalsDriver, read, write bool) (*locks.InterProcessMutex, error) {
	opts := []locks.MutexOption{locks.WithLockData(data)}
	if read || write {
		rw, err := locks.NewInterProcessReadWriteLock(c, path, opts...)
		switch {
		case err != nil:
			return nil, err
		case read:
			return rw.ReadLock(), nil
		}
		return rw.WriteLock(), nil
	}
	if driver != nil {
		opts = append(opts, locks.WithDriver(driver))
	}
	return locks.NewInterProcessMutex(c, path, opts...)
}
