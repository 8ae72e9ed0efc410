package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

var revokeCommand = &command{
	name:     "revoke",
	synopsis: "[flags] NODE",
	summary:  "ask the holder of a lock node to release it",
	help: `Asks the holder of the lock node NODE (a path that 'zkcurator participants'
prints) to release the lock, as Curator's Revoker does: it sets the node's
data to __REVOKE__. Holders that agreed to be revoked let go: 'zkcurator
lock --revocable' stops its command, and Curator or zkcurator programs run
the callback they gave to makeRevocable/MakeRevocable. Other holders keep
the lock. Exits with status 1 when NODE does not exist.`,
	positional: 1,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		return func(ctx context.Context, out io.Writer, args []string) error {
			node := args[0]
			if err := checkPath("NODE", node); err != nil {
				return fail(exitUsage, "revoke: %v", err)
			}
			log := newLogger(conn.verbose)
			defer func() { _ = log.Sync() }()
			c, err := conn.dial(ctx, log)
			if err != nil {
				return err
			}
			defer closeClient(c, 6*time.Second, log)
			st, err := c.Exists(ctx, node)
			switch {
			case err != nil:
				return fail(exitUnavailable, "revoke: read %s: %v", node, err)
			case st == nil:
				return fail(exitNotFound, "revoke: no node %s", node)
			}
			if err := locks.AttemptRevoke(ctx, c, node); err != nil {
				return fail(exitUnavailable, "revoke %s: %v", node, err)
			}
			fmt.Fprintf(out, "asked the holder of %s (session %s, fencing token %d) to release it\n", node, sessionHex(st.EphemeralOwner), st.Czxid)
			return nil
		}
	},
}
