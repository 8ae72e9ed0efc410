package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
)

var electCommand = &command{
	name:     "elect",
	synopsis: "[flags] PATH --id NAME [--] COMMAND [ARGS...]",
	summary:  "run a command only while this process leads an election",
	help: `Joins the leader election at PATH as participant --id, waits until it leads,
runs COMMAND and leaves the election when COMMAND exits, exiting with its
status. The election is Curator's LeaderLatch ("latch-" nodes holding the
participant ids), so Java services running a LeaderLatch on PATH take part in
the same election. COMMAND gets ZKCURATOR_LOCK_NODE (the leading latch
node's path) and ZKCURATOR_FENCING_TOKEN (its czxid, larger for every later
leader) in its environment.

When leadership is no longer certain (the connection to ZooKeeper is
suspended, the session expired, or the latch node was deleted), COMMAND gets
SIGTERM, and SIGKILL after --grace; zkcurator then exits with status 79.
As with 'zkcurator lock', the latch node is kept until COMMAND has exited,
so the next leader's command does not start while this one's is stopping
(unless the session expired: the server then deletes the node itself).
Signals are handled as by 'zkcurator lock'.`,
	positional:  1,
	runsCommand: true,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		var f holdFlags
		f.add(fs, false)
		fs.Lookup("wait").Usage = "give up (status 75) when not leading within this `duration`, connecting included (status 69 when ZooKeeper was not reached by then); connecting gets at least 1s; 0 leads only if no one else takes part in the election now (default: wait for as long as it takes)"
		id := fs.String("id", "", "this participant's id, stored in its latch node (`NAME`, required)")
		return func(ctx context.Context, _ io.Writer, args []string) error {
			path := args[0]
			if err := checkPath("PATH", path); err != nil {
				return fail(exitUsage, "elect: %v", err)
			}
			if *id == "" {
				return fail(exitUsage, "elect: missing --id NAME (this participant's id)")
			}
			what := "leadership of " + path
			return runUnder(ctx, conn, &f, what, args[1:], func(ctx context.Context, c *framework.Client, wait optionalDuration) (hold, func(context.Context) error, error) {
				return lead(ctx, c, path, *id, wait)
			})
		}
	},
}

// leaveTimeout bounds leaving an election that was not won.
const leaveTimeout = 2 * time.Second

// lead joins the election at path and waits for a term, at most wait when
// it is set. It returns the term as a hold and Close as its release, or a
// nil release when the wait elapsed. A wait of 0 is one try: it joins only
// when no one else takes part, and gives up unless it leads within oneTry
// (another participant that joined at the same moment may lead instead).
func lead(ctx context.Context, c *framework.Client, path, id string, wait optionalDuration) (hold, func(context.Context) error, error) {
	// The latch keeps its node after a term ends until Close, which comes
	// once the command has exited: the next leader's command never starts
	// while this one's is still stopping.
	latch, err := leader.NewLeaderLatch(c, path, id, leader.WithManualStepDown())
	if err != nil {
		return hold{}, nil, err
	}
	if wait.set && wait.d == 0 {
		others, err := latch.Participants(ctx)
		if err != nil || len(others) > 0 {
			return hold{}, nil, err
		}
		wait.d = oneTry
	}
	if err := latch.Start(); err != nil {
		return hold{}, nil, err
	}
	actx, cancel := ctx, context.CancelFunc(func() {})
	if wait.set {
		actx, cancel = context.WithTimeout(ctx, wait.d)
	}
	defer cancel()
	term, err := latch.Await(actx)
	if err != nil {
		closeCtx, done := context.WithTimeout(context.WithoutCancel(ctx), leaveTimeout)
		defer done()
		_ = latch.Close(closeCtx)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return hold{}, nil, nil // the wait elapsed
		}
		return hold{}, nil, err
	}
	return hold{node: term.Node, token: term.Token, lost: term.Done()}, latch.Close, nil
}
