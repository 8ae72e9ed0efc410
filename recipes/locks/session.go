package locks

import (
	"context"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// A node counts for this client only while the session that created it is the
// client's current one: a node of a session the client gave up (simulated
// expiry) or that the server expired still stands on the server for a while,
// and must never grant a hold or a lease. Every contender therefore knows the
// session that owns its node, and checks it against the client's current
// session before it holds.

// createOwned is owned.Create, with a node found gone reported as vanished.
func createOwned(ctx context.Context, c *framework.Client, create func(context.Context) (string, error)) (string, int64, error) {
	p, owner, err := owned.Create(ctx, c, create)
	switch {
	case err != nil && p != "":
		return p, 0, errorf("locks: %w", err)
	case err == nil && owner == 0:
		return p, 0, vanished(p)
	}
	return p, owner, err
}

// isCurrent is owned.IsCurrent.
func isCurrent(c *framework.Client, owner int64) bool { return owned.IsCurrent(c, owner) }

// sessionGone reports that the node at path belongs to a session the client
// no longer has. It matches errVanished, so the attempt deletes the node and
// queues again on the current session as far as the retry policy allows.
func sessionGone(path string, owner int64) error {
	return errorf("%w: %s belongs to session 0x%x, which the client no longer has", errVanished, path, owner)
}
