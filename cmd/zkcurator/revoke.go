package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path"
	"regexp"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

var revokeCommand = &command{
	name:     "revoke",
	synopsis: "[flags] NODE",
	summary:  "ask the holder of a lock to release it",
	help: `Asks a contender to release what it holds, as Curator's Revoker does: it
sets the data of the contender's node to __REVOKE__. NODE is a contender's
ephemeral node of a lock, semaphore or leader path (a path that 'zkcurator
participants' prints), or such a path itself, which stands for the node of
its one current holder. Holders that agreed to be revoked let go: 'zkcurator
lock --revocable' stops its command, and Curator or zkcurator programs run
the callback they gave to makeRevocable/MakeRevocable. Other holders keep
the lock. ZooKeeper cannot tell whether a holder listens: a zkcurator
holder says so in its node's default data ("..., revocable"), and one that
does not listen is refused (status 1, its data left alone); for any other
holder the output says that it cannot be known.

Any other node is refused (status 64) and its data left alone: a plain
node, the unfair driver's holder node, a TTL lock's persistent node, a path
with several holders (revoke one of their nodes). A NODE that does not
exist, or a lock, semaphore or election path that no one holds, exits with
status 1; a NODE whose ACL refuses this client, with status 77.`,
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
			target, err := revokeTarget(ctx, c, node)
			if err != nil {
				return err
			}
			listens := listensForRevocation(target.data)
			if listens == doesNotListen {
				return fail(exitNotFound, "revoke: the holder of %s (%s) is a zkcurator that does not listen for revocation (only 'zkcurator lock --revocable' does); its data was left alone", target.path, printable(target.data))
			}
			if err := locks.AttemptRevoke(ctx, c, target.path); err != nil {
				switch {
				case errors.Is(err, locks.ErrNotContender):
					return fail(exitUsage, "revoke %s: %v; its data was left alone", target.path, err)
				case refused(err):
					return noPermission("revoke "+target.path, err)
				}
				return fail(exitUnavailable, "revoke %s: %v", target.path, err)
			}
			msg := fmt.Sprintf("asked the holder of %s (session %s, fencing token %d) to release it", target.path, sessionHex(target.stat.EphemeralOwner), target.token)
			if listens == doesListen {
				msg += "; it was started with --revocable and listens"
			} else {
				msg += fmt.Sprintf("; whether it listens for revocation cannot be known (zkcurator lock --revocable and Curator's makeRevocable holders do, others keep the lock): 'zkcurator participants %s' shows whether it let go", path.Dir(target.path))
			}
			if _, err := fmt.Fprintln(out, msg); err != nil {
				return fail(exitInternal, "revoke: write: %v", err)
			}
			return nil
		}
	},
}

// revokeTarget returns the contender node that revoking node asks: node
// itself when it is an ephemeral contender node of its parent, or the one
// holder of the lock, semaphore or election at node. Anything else is an
// error; nothing is written.
func revokeTarget(ctx context.Context, c *framework.Client, node string) (contender, error) {
	var parentErr error // the parent's ACL refused listing it
	if parent := path.Dir(node); parent != "/" {
		cs, err := readContenders(ctx, c, parent)
		switch code := exitCode(err); {
		case err == nil, code == exitNotFound:
		case code == exitNoPermission:
			parentErr = err // node may still be a path this client may read
		default:
			return contender{}, err
		}
		if n, ok := cs.find(node); ok {
			return n, ephemeral(n)
		}
	}
	cs, err := readContenders(ctx, c, node)
	if err != nil {
		return contender{}, fmt.Errorf("revoke: %w", err)
	}
	holders := cs.holders()
	switch {
	case len(cs.nodes) == 0 && parentErr != nil:
		return contender{}, fail(exitNoPermission, "revoke: cannot tell whether %s is a contender's node: %v", node, parentErr)
	case len(cs.nodes) == 0 && cs.recipe:
		return contender{}, fail(exitNotFound, "revoke: no one holds %s now", node)
	case len(cs.nodes) == 0:
		return contender{}, fail(exitUsage, "revoke: %s is neither a contender's node of a lock, semaphore or leader path nor such a path; its data was left alone", node)
	case len(holders) == 0:
		return contender{}, fail(exitNotFound, "revoke: no one holds %s now", node)
	case len(holders) > 1:
		return contender{}, fail(exitUsage, "revoke: %s has %d holders; revoke one of their nodes ('zkcurator participants %s' lists them)", node, len(holders), node)
	}
	return holders[0], ephemeral(holders[0])
}

// ephemeral refuses a contender node that no session owns, such as a TTL
// lock's: it is not a holder that a revocation can reach through its session.
func ephemeral(n contender) error {
	if n.stat.EphemeralOwner == 0 {
		return fail(exitUsage, "revoke: %s is not an ephemeral node; its data was left alone", n.path)
	}
	return nil
}

// Whether a holder listens for revocation, as its node's data tells.
const (
	unknownIfListens = iota
	doesListen
	doesNotListen
)

// zkcuratorData matches the default data of a zkcurator contender's node,
// which ends in ", revocable" when it listens for revocation.
var zkcuratorData = regexp.MustCompile(`^zkcurator on \S+ pid [0-9]+(, revocable)?$`)

// listensForRevocation tells from a holder node's data whether its holder
// listens for revocation: known only for zkcurator's default data.
func listensForRevocation(data []byte) int {
	m := zkcuratorData.FindSubmatch(data)
	switch {
	case m == nil:
		return unknownIfListens
	case len(m[1]) > 0:
		return doesListen
	}
	return doesNotListen
}
