// Package owned is the one home of the session rule, which every recipe
// calls directly: a node counts for a client only while the session that
// created it is the client's current one. A node of a session the client gave
// up (simulated expiry) or the server expired still stands on the server for
// a while, and must never grant a hold, a lease, leadership or a
// registration. A recipe creates its node with Create, keeps the
// framework.Session it reports beside the node, and asks the session's
// IsCurrent before the node grants anything (or waits on its Done). Errors
// carry no package prefix: the recipe wraps them in its own.
package owned

import (
	"context"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// Create runs create and reports the session that owns the node it created.
// When the client's session was the same before and after the create, the
// create ran in that session (session ids are never reused); otherwise it
// reads the node's owner, which costs one request and is rare, and reports it
// as c.SessionOf does (done unless it is the current session). A session of
// id 0 with a nil error means the node was gone already: no session the
// client has owns it.
func Create(ctx context.Context, c *framework.Client, create func(context.Context) (string, error)) (string, framework.Session, error) {
	before := c.Session()
	p, err := create(ctx)
	if err != nil {
		return "", framework.Session{}, err
	}
	if after := c.Session(); before.ID() != 0 && before.ID() == after.ID() {
		return p, before, nil
	}
	stat, err := c.Exists(ctx, p)
	switch {
	case err != nil:
		return p, framework.Session{}, fmt.Errorf("read the owner of %s: %w", p, err)
	case stat == nil:
		return p, framework.Session{}, nil
	}
	return p, c.SessionOf(stat.EphemeralOwner), nil
}
