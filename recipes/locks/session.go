package locks

import (
	"context"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// A node counts for this client only while the session that created it is the
// client's current one: a node of a session the client gave up (simulated
// expiry) or that the server expired still stands on the server for a while,
// and must never grant a hold or a lease. Every contender therefore knows the
// session that owns its node, and checks it against the client's current
// session before it holds.

// createOwned runs create and reports the session that owns the node it
// created. When the client's session was the same before and after the
// create, the create ran in that session (session ids are never reused);
// otherwise it reads the node's owner, which costs one request and is rare.
func createOwned(ctx context.Context, c *framework.Client, create func(context.Context) (string, error)) (string, int64, error) {
	before := c.SessionID()
	p, err := create(ctx)
	if err != nil {
		return "", 0, err
	}
	if after := c.SessionID(); before != 0 && before == after {
		return p, before, nil
	}
	stat, err := c.Exists(ctx, p)
	switch {
	case err != nil:
		return p, 0, fmt.Errorf("locks: read the owner of %s: %w", p, err)
	case stat == nil:
		return p, 0, vanished(p)
	}
	return p, stat.EphemeralOwner, nil
}

// isCurrent reports whether owner, the session that owns a node, is the
// client's current session.
func isCurrent(c *framework.Client, owner int64) bool {
	return owner != 0 && owner == c.SessionID()
}

// sessionGone reports that the node at path belongs to a session the client
// no longer has. It matches errVanished, so the attempt deletes the node and
// queues again on the current session as far as the retry policy allows.
func sessionGone(path string, owner int64) error {
	return fmt.Errorf("%w: %s belongs to session 0x%x, which the client no longer has", errVanished, path, owner)
}
