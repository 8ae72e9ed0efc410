package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

var semaphoreCommand = &command{
	name:     "semaphore",
	synopsis: "[flags] PATH --leases N [--] COMMAND [ARGS...]",
	summary:  "run a command while holding one of N leases",
	help: `Takes one lease of the semaphore at PATH, which grants at most --leases
leases at once across all its users, runs COMMAND and returns the lease when
COMMAND exits, exiting with its status. The semaphore is Curator's
InterProcessSemaphoreV2 ("PATH/locks" and "PATH/leases"), so Java services
using Curator on PATH count against the same limit; every user must give the
same --leases. COMMAND gets ZKCURATOR_LOCK_NODE (the lease node's path) and
ZKCURATOR_FENCING_TOKEN (its czxid) in its environment.

Signals and a lost lease are handled as by 'zkcurator lock'.`,
	positional:  1,
	runsCommand: true,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		var f holdFlags
		f.add(fs, true)
		var leases int
		fs.Var(positiveInt{&leases}, "leases", "the most leases granted at once (`N`, required)")
		return func(ctx context.Context, _ io.Writer, args []string) error {
			path := args[0]
			if err := checkPath("PATH", path); err != nil {
				return fail(exitUsage, "semaphore: %v", err)
			}
			if leases < 1 {
				return fail(exitUsage, "semaphore: missing --leases N (the most leases at once, at least 1)")
			}
			what := "lease of semaphore " + path
			return runUnder(ctx, conn, &f, what, args[1:], func(ctx context.Context, c *framework.Client, wait optionalDuration) (hold, func(context.Context) error, error) {
				sem, err := locks.NewInterProcessSemaphoreV2(c, path, leases, locks.WithLeaseData([]byte(f.data)))
				if err != nil {
					return hold{}, nil, err
				}
				var lease *locks.Lease
				if wait.set {
					got, err := sem.TryAcquire(ctx, 1, wait.d)
					if err != nil || len(got) == 0 {
						return hold{}, nil, err
					}
					lease = got[0]
				} else {
					if lease, err = sem.Acquire(ctx); err != nil {
						return hold{}, nil, err
					}
				}
				h := hold{node: lease.Path(), lost: lease.Lost()}
				h.token, h.tokenErr = leaseToken(ctx, c, lease)
				return h, lease.Close, nil
			})
		}
	},
}

// leaseToken reads the fencing token (czxid) of a lease node that this
// session owns. The read ends when the lease is lost, so that a command is
// never started on a token read after the loss.
func leaseToken(ctx context.Context, c *framework.Client, lease *locks.Lease) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-lease.Lost():
			cancel()
		case <-ctx.Done():
		}
	}()
	_, st, err := c.GetData(ctx, lease.Path())
	switch {
	case err != nil:
		return 0, fmt.Errorf("read %s: %w", lease.Path(), err)
	case st.EphemeralOwner != c.SessionID():
		return 0, fmt.Errorf("%s belongs to session %s, not this one", lease.Path(), sessionHex(st.EphemeralOwner))
	}
	return st.Czxid, nil
}
