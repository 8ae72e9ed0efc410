package framework

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// Sync asks the server the client is connected to to catch up with the
// leader on path, as Curator's sync: a read made after Sync returns sees
// every write the ensemble committed before Sync began.
func (c *Client) Sync(ctx context.Context, path string) error {
	_, err := query(ctx, c, "sync", path, func(conn *zk.Conn, full string) (string, error) {
		return conn.Sync(full)
	})
	return err
}

// GetACL returns the node's ACL and Stat; errors.Is(err, zk.ErrNoNode) when
// absent.
func (c *Client) GetACL(ctx context.Context, path string) ([]zk.ACL, *zk.Stat, error) {
	type aclResult struct {
		acl  []zk.ACL
		stat *zk.Stat
	}
	r, err := query(ctx, c, "get ACL", path, func(conn *zk.Conn, full string) (aclResult, error) {
		acl, st, err := conn.GetACL(full)
		return aclResult{acl, st}, err
	})
	return r.acl, r.stat, err
}

// SetACL replaces the node's ACL if its ACL version (Stat.Aversion) is
// version (-1 for any) and returns the new Stat; errors.Is(err,
// zk.ErrBadVersion) on a mismatch. An empty ACL, an entry without a scheme
// or with permissions outside zk.PermAll, or a version below -1 fails with
// ErrInvalidArgument before any request.
func (c *Client) SetACL(ctx context.Context, path string, acl []zk.ACL, version int32) (*zk.Stat, error) {
	if err := checkACL(acl); err != nil {
		return nil, wrapErr("set ACL", path, err)
	}
	if version < -1 {
		return nil, wrapErr("set ACL", path, invalidArg("version %d is below -1", version))
	}
	acl = append([]zk.ACL(nil), acl...)
	return query(ctx, c, "set ACL", path, func(conn *zk.Conn, full string) (*zk.Stat, error) {
		return conn.SetACL(full, acl, version)
	})
}

// checkACL refuses an ACL the server would reject or that would leave a node
// without any entry.
func checkACL(acl []zk.ACL) error {
	if len(acl) == 0 {
		return invalidArg("ACL is empty")
	}
	for i, a := range acl {
		switch {
		case a.Scheme == "":
			return invalidArg("ACL entry %d has no scheme", i)
		case a.Perms == 0 || a.Perms&^zk.PermAll != 0:
			return invalidArg("ACL entry %d (%s) has permissions %#x, want a non-empty subset of zk.PermAll (%#x)", i, a.Scheme, a.Perms, zk.PermAll)
		}
	}
	return nil
}
