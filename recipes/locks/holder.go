package locks

import (
	"context"
	"errors"
	"fmt"
	"path"

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
// without a holder node hold as soon as GetsTheLock says so.
func (li *lockInternals) claimHolder(ctx context.Context, ourPath string) (bool, error) {
	name := li.holderName()
	if name == "" {
		return true, nil
	}
	holderPath := framework.JoinPath(li.basePath, name)
	_, err := li.client.Transaction(ctx,
		&zk.CheckVersionRequest{Path: ourPath, Version: -1},
		&zk.CreateRequest{Path: holderPath, Data: []byte(path.Base(ourPath)), Flags: zk.FlagEphemeral},
	)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, zk.ErrNoNode):
		return false, vanished(ourPath)
	case !errors.Is(err, zk.ErrNodeExists):
		return false, fmt.Errorf("locks: claim %s: %w", holderPath, err)
	}
	// Someone holds, or our own claim succeeded but its reply was lost.
	data, stat, err := li.client.GetData(ctx, holderPath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("locks: read %s: %w", holderPath, err)
	}
	return string(data) == path.Base(ourPath) && stat.EphemeralOwner == li.client.SessionID(), nil
}

// fencePath is the node whose creation zxid is the fencing token of a hold.
func (li *lockInternals) fencePath(ourPath string) string {
	if name := li.holderName(); name != "" {
		return framework.JoinPath(li.basePath, name)
	}
	return ourPath
}

// ownsHolder reports whether the holder node names our node and belongs to
// our session: an attempt whose claim went through unseen must give it up.
func (li *lockInternals) ownsHolder(ctx context.Context, ourPath string) bool {
	data, stat, err := li.client.GetData(ctx, framework.JoinPath(li.basePath, li.holderName()))
	return err == nil && string(data) == path.Base(ourPath) && stat.EphemeralOwner == li.client.SessionID()
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
