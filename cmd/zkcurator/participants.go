package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

var participantsCommand = &command{
	name:     "participants",
	synopsis: "[flags] PATH",
	summary:  "list the holders and waiters of a lock or semaphore",
	help: `Lists the contenders' nodes of the lock or semaphore at PATH (ours and
Curator's), in the order in which they hold it: with a mutex the first one
holds the lock; with a read/write lock the readers before the first writer
hold it; with a semaphore of N leases the first N hold one each. For each
node it prints its path, the session that owns it (as ZooKeeper logs print
it), its fencing token (czxid) and the data its contender stored.`,
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
			return listParticipants(ctx, c, path, out, log)
		}
	},
}

// contenderMarkers are the lock names of Curator's recipes, the text before
// a node's ordering key.
var contenderMarkers = []string{"__READ__", "__WRIT__", "lease-", "lock-"}

// contenderKey is a FixForSorting for every recipe's nodes at once.
func contenderKey(name, _ string) string {
	for _, m := range contenderMarkers {
		if i := strings.LastIndex(name, m); i >= 0 {
			return name[i+len(m):]
		}
	}
	return name
}

func listParticipants(ctx context.Context, c *framework.Client, path string, out io.Writer, log *zap.Logger) error {
	kids, err := children(ctx, c, path)
	if err != nil {
		return err
	}
	if slices.Contains(kids, "leases") {
		// A semaphore: its contenders are the lease nodes.
		path = framework.JoinPath(path, "leases")
		if kids, err = children(ctx, c, path); err != nil {
			return err
		}
	}
	nodes := locks.SortedContenders(kids, "", contenderKey)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tNODE\tSESSION\tTOKEN\tDATA")
	for i, name := range nodes {
		p := framework.JoinPath(path, name)
		data, st, err := c.GetData(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue // released since the listing
		}
		if err != nil {
			return fail(exitUnavailable, "read %s: %v", p, err)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\n", i+1, p, sessionHex(st.EphemeralOwner), st.Czxid, printable(data))
	}
	log.Info("listed participants", zap.String("path", path), zap.Int("nodes", len(nodes)))
	return tw.Flush()
}

// children lists path's children; a missing path is an empty list.
func children(ctx context.Context, c *framework.Client, path string) ([]string, error) {
	kids, _, err := c.Children(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fail(exitUnavailable, "list %s: %v", path, err)
	}
	return kids, nil
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
