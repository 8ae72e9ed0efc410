// Package versioned writes ZooKeeper nodes so that the caller always learns
// whether a write applied: exactly once, certainly not, or unknown.
//
// The framework retries every operation after a connection loss. For a
// version-checked setData whose reply was lost that hides the outcome: the
// retry fails with BadVersion both when the first attempt applied and when
// another writer came first. The functions here notice a connection loss
// during the call (Client.ConnectionLosses and the session id), resolve
// the outcome from the node where its state proves it, and report
// ErrOutcomeUnknown where it cannot, so that no caller retries a write that
// may already have applied.
package versioned

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// ErrOutcomeUnknown reports a write that may or may not have applied on the
// server: its reply was lost (connection loss, server restart, session
// expiry) or the caller's ctx ended while it was under way.
var ErrOutcomeUnknown = errors.New("the write may or may not have applied")

// mark is the connection history of a client before a write.
type mark struct {
	losses  uint64
	session int64
}

func markOf(c *framework.Client) mark {
	return mark{losses: c.ConnectionLosses(), session: c.SessionID()}
}

// disturbed reports whether the connection was lost, or the session
// changed, since m: a request sent in that window may have been applied
// without its reply reaching us, and then retried by the framework.
func (m mark) disturbed(c *framework.Client) bool {
	return c.ConnectionLosses() != m.losses || c.SessionID() != m.session
}

// unknown wraps cause in ErrOutcomeUnknown, naming what was written where.
func unknown(what, path string, cause error) error {
	return fmt.Errorf("%w: %s %s: %w", ErrOutcomeUnknown, what, path, cause)
}

// Set writes data to the node at path if its version is expect's. A zero
// expect.Czxid (unknown) only makes fewer outcomes provable. It returns the node's new
// Stat when the write applied exactly once; an error matching
// zk.ErrBadVersion or zk.ErrNoNode when it certainly did not apply; and an
// error matching ErrOutcomeUnknown when it may have.
func Set(ctx context.Context, c *framework.Client, path string, data []byte, expect *zk.Stat) (*zk.Stat, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // nothing sent
	}
	m := markOf(c)
	stat, err := c.SetData(ctx, path, data, expect.Version)
	switch {
	case err == nil:
		// A retry applied with the expected version, so an earlier attempt
		// did not, unless the node was deleted and created again between.
		if stat.Czxid != expect.Czxid && m.disturbed(c) {
			return nil, unknown("set data", path, fmt.Errorf("the node was replaced (czxid 0x%x, was 0x%x)", stat.Czxid, expect.Czxid))
		}
		return stat, nil
	case !errors.Is(err, zk.ErrBadVersion) && !errors.Is(err, zk.ErrNoNode):
		if errors.Is(err, framework.ErrInvalidPath) {
			return nil, err
		}
		return nil, unknown("set data", path, err)
	case !m.disturbed(c):
		return nil, err // the only attempt was rejected
	}
	// BadVersion or NoNode after a connection loss: an earlier attempt may
	// have applied. The node at version expect+1 with other data proves it
	// did not (ours would have made exactly that version).
	cur, curStat, rerr := c.GetData(ctx, path)
	if rerr == nil && curStat.Czxid == expect.Czxid && curStat.Version == expect.Version+1 && !bytes.Equal(cur, data) {
		return nil, err
	}
	if rerr == nil && curStat.Czxid == expect.Czxid && curStat.Version == expect.Version {
		return nil, err // unchanged: nothing applied
	}
	if rerr != nil && !errors.Is(rerr, zk.ErrNoNode) {
		return nil, unknown("set data", path, errors.Join(err, rerr))
	}
	return nil, unknown("set data", path, err)
}

// Create creates the node at path with data, persistent, its missing
// parents as containers. It returns nil when this call created the node;
// an error matching zk.ErrNodeExists when the node certainly was there
// before; and an error matching ErrOutcomeUnknown when this call may have
// created it.
func Create(ctx context.Context, c *framework.Client, path string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if data == nil {
		data = []byte{}
	}
	m := markOf(c)
	_, err := c.Create(ctx, path, data, framework.CreatingParentContainersIfNeeded())
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, zk.ErrNodeExists):
		if errors.Is(err, framework.ErrInvalidPath) || errors.Is(err, zk.ErrNoNode) && !m.disturbed(c) {
			return err
		}
		return unknown("create", path, err)
	case !m.disturbed(c):
		return err
	}
	// NodeExists after a connection loss: a node at version 0 with other
	// data proves that another client created it and ours never applied.
	cur, stat, rerr := c.GetData(ctx, path)
	if rerr == nil && stat.Version == 0 && !bytes.Equal(cur, data) {
		return err
	}
	if rerr != nil && !errors.Is(rerr, zk.ErrNoNode) {
		return unknown("create", path, errors.Join(err, rerr))
	}
	return unknown("create", path, err)
}
