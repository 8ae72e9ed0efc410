package locks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

func (li *lockInternals) holderName() string {
	if h, ok := li.driver.(Holding); ok {
		return h.HolderNodeName()
	}
	return ""
}

// claimHolder makes a pick of a Holding driver a hold: it creates the holder
// node in one transaction with a check that our node still exists, so a
// contender whose session has ended can never own the holder node. Drivers
// without a holder node hold as soon as GetsTheLock says so. A driver that
// yields to fair contenders (the unfair driver) then lists the contenders and
// gives the holder node back if it finds a fair one (see yieldToFair).
func (li *lockInternals) claimHolder(ctx context.Context, n *lockNode) (bool, error) {
	name := li.holderName()
	if name == "" {
		return true, nil
	}
	holderPath := framework.JoinPath(li.basePath, name)
	_, err := li.client.Transaction(ctx,
		&zk.CheckVersionRequest{Path: n.path, Version: -1},
		&zk.CreateRequest{Path: holderPath, Data: []byte(path.Base(n.path)), Flags: zk.FlagEphemeral},
	)
	switch {
	case err == nil:
	case errors.Is(err, zk.ErrNoNode):
		return false, vanished(n.path)
	case !errors.Is(err, zk.ErrNodeExists):
		return false, fmt.Errorf("locks: claim %s: %w", holderPath, err)
	default:
		// Someone holds, or our own claim succeeded but its reply was lost.
		data, stat, err := li.client.GetData(ctx, holderPath)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("locks: read %s: %w", holderPath, err)
		case string(data) != path.Base(n.path) || !li.ownedByUs(stat, n):
			return false, nil
		}
	}
	return li.yieldToFair(ctx, n.path)
}

// ownedByUs reports whether a holder node belongs to the session of our node.
func (li *lockInternals) ownedByUs(stat *zk.Stat, n *lockNode) bool {
	if li.sessionBound() {
		return stat.EphemeralOwner == n.owner
	}
	return stat.EphemeralOwner == li.client.SessionID()
}

// fairYielder is implemented by Holding drivers that let fair contenders go
// first (UnfairLockInternalsDriver, and drivers that embed it).
type fairYielder interface {
	yieldsToFair() bool
}

// yieldToFair completes a claim of a driver that yields to fair contenders:
// having created the holder node, it lists the contenders and, if any is
// fair, gives the holder node back and reports no hold. A fair contender that
// listed before our claim holds without knowing of it, but it exists, so we
// find it here; one that lists after our claim sees the holder node first and
// waits for it. So an unfair and a fair contender never hold together.
func (li *lockInternals) yieldToFair(ctx context.Context, ourPath string) (bool, error) {
	if y, ok := li.driver.(fairYielder); !ok || !y.yieldsToFair() {
		return true, nil
	}
	names, err := li.contenders(ctx)
	if err == nil && !slices.ContainsFunc(names, isFairContender) {
		return true, nil
	}
	// A fair contender exists, or we cannot tell: give the holder node back.
	if rerr := li.releaseHolderOnly(ctx, ourPath); rerr != nil {
		return false, rerr
	}
	return false, err
}

// isFairContender reports whether a mutex contender's node is a fair one:
// neither the unfair holder node nor an unfair contender's.
func isFairContender(name string) bool {
	return name != UnfairHolderNodeName && !isUnfairNode(name)
}

// releaseHolderOnly gives back a holder node that we claimed but may not
// keep, in one transaction with a check of our node: while our node exists,
// the holder node is still our session's.
func (li *lockInternals) releaseHolderOnly(ctx context.Context, ourPath string) error {
	_, err := li.client.Transaction(ctx,
		&zk.CheckVersionRequest{Path: ourPath, Version: -1},
		&zk.DeleteRequest{Path: framework.JoinPath(li.basePath, li.holderName()), Version: -1},
	)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, zk.ErrNoNode):
		return vanished(ourPath)
	}
	return fmt.Errorf("locks: give back %s: %w", li.holderName(), err)
}

// fencePath is the node whose creation zxid is the fencing token of a hold.
func (li *lockInternals) fencePath(ourPath string) string {
	if name := li.holderName(); name != "" {
		return framework.JoinPath(li.basePath, name)
	}
	return ourPath
}

// ownsHolder reports whether the holder node names our node and belongs to
// our node's session: an attempt whose claim went through unseen must give
// it up.
func (li *lockInternals) ownsHolder(ctx context.Context, n lockNode) bool {
	data, stat, err := li.client.GetData(ctx, framework.JoinPath(li.basePath, li.holderName()))
	return err == nil && string(data) == path.Base(n.path) && li.ownedByUs(stat, &n)
}

// releaseHolder deletes our node and the holder node atomically, so that a
// holder node is never deleted on behalf of a session other than its own:
// once our node is gone (NoNode), so is our holder node. It keeps trying
// through connection loss for up to twice the session timeout, by which time
// the session has either come back or been declared lost and closed (and its
// ephemeral holder node deleted by the server).
func (li *lockInternals) releaseHolder(ctx context.Context, ourPath string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*li.client.SessionTimeout())
	defer cancel()
	bo := backoff.WithContext(backoff.NewExponentialBackOff(), ctx)
	op := func() error {
		_, err := li.client.Transaction(ctx,
			&zk.DeleteRequest{Path: ourPath, Version: -1},
			&zk.DeleteRequest{Path: framework.JoinPath(li.basePath, li.holderName()), Version: -1},
		)
		switch {
		case err == nil || errors.Is(err, zk.ErrNoNode):
			return nil
		case retry.IsRetryable(err):
			return err
		}
		return backoff.Permanent(err)
	}
	if err := backoff.Retry(op, bo); err != nil {
		return fmt.Errorf("locks: release %s: %w", ourPath, err)
	}
	return nil
}
