package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"go.uber.org/zap"
)

var participantsCommand = &command{
	name:     "participants",
	synopsis: "[flags] PATH",
	summary:  "list the holders and waiters of a lock, semaphore or election",
	help: `Lists the contenders' nodes at PATH (ours and Curator's), in the order in
which they hold it, each marked HOLDS or WAITS. PATH may be a lock (a mutex,
with either driver, or a read/write lock: the readers before the first
writer hold it), a semaphore (its lease nodes; the one whose owner still
holds the semaphore's own lock waits for its lease), or a leader election
(LeaderLatch's "latch-" nodes or LeaderSelector's "lock-" nodes: the first
leads). The unfair driver's bookkeeping node is not listed; the contender it
names holds. For each node it prints its path, the session that owns it (as
ZooKeeper logs print it; "-" for a TTL lock's), the fencing token its holder
gets (czxid) and the data its contender stored. A PATH that does not exist,
or has no contenders (no one holds or waits for it now, or it is not a
lock, semaphore or election path), prints no table, says so on stderr and
exits with status 1. A PATH whose ACL refuses this client exits with
status 77.`,
	positional: 1,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		return func(ctx context.Context, out io.Writer, args []string) error {
			path := args[0]
			if err := checkPath("PATH", path); err != nil {
				return fail(exitUsage, "participants: %v", err)
			}
			log := newLogger(conn.verbose)
			defer func() { _ = log.Sync() }()
			c, err := conn.dial(ctx, log)
			if err != nil {
				return err
			}
			defer closeClient(c, 6*time.Second, log)
			cs, err := readContenders(ctx, c, path)
			if err != nil {
				return err
			}
			log.Info("listed participants", zap.String("path", cs.dir), zap.Int("nodes", len(cs.nodes)))
			if len(cs.nodes) == 0 {
				return noContenders("participants", path, cs)
			}
			if err := printContenders(out, cs); err != nil {
				return fail(exitInternal, "participants: write: %v", err)
			}
			return nil
		}
	},
}

// noContenders is the exitNotFound error for a path with no contender
// nodes, saying whether it is a recipe's path that no one holds now.
func noContenders(cmd, p string, cs contenders) error {
	if cs.recipe {
		return fail(exitNotFound, "%s: no one holds or waits for %s now", cmd, p)
	}
	return fail(exitNotFound, "%s: %s has no contenders: no one holds or waits for it now, or it is not a lock, semaphore or election path", cmd, p)
}

// printContenders prints one row per contender under a header.
func printContenders(out io.Writer, cs contenders) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tSTATE\tNODE\tSESSION\tTOKEN\tDATA")
	for i, n := range cs.nodes {
		state := "WAITS"
		if n.holds {
			state = "HOLDS"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", i+1, state, n.path, sessionHex(n.stat.EphemeralOwner), n.token, printable(n.data))
	}
	return tw.Flush()
}

// sessionHex formats a session id as ZooKeeper's logs do; 0 (a persistent
// node, such as a TTL lock's) is "-".
func sessionHex(id int64) string {
	if id == 0 {
		return "-"
	}
	return fmt.Sprintf("0x%x", uint64(id))
}

// printable shows node data on one line.
func printable(data []byte) string {
	if len(data) == 0 {
		return "-"
	}
	s := strings.ToValidUTF8(string(data), "?")
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
