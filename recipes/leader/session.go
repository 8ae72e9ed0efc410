package leader

import (
	"context"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// createOwned runs create and reports the session that owns the node it
// created: the client's session when it was the same before and after the
// create (session ids are never reused), otherwise the node's ephemeral
// owner, read back at the cost of one request.
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
		return p, 0, fmt.Errorf("leader: read the owner of %s: %w", p, err)
	case stat == nil:
		// Gone already: owned by no session we have, so the caller drops it.
		return p, 0, nil
	}
	return p, stat.EphemeralOwner, nil
}

// isCurrent reports whether owner, the session that owns a node, is the
// client's current session.
func isCurrent(c *framework.Client, owner int64) bool {
	return owner != 0 && owner == c.SessionID()
}
