package locks

import (
	"context"
	"errors"
	"path"
	"slices"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// claimHolder makes a pick of a Holding driver a hold: it creates the holder
// node in one transaction with a check that our node still exists, so a
// contender whose session has ended can never own the holder node. Drivers
// without a holder node hold as soon as GetsTheLock says so. A driver that
// yields to fair contenders (the unfair driver) then lists the contenders and
// gives the holder node back if it finds a fair one (see yieldToFair). A
// hold's fencing token is the holder node's creation zxid, read once the
// claim stands.
func (li *lockInternals) claimHolder(ctx context.Context, n *lockNode) (bool, error) {
	if li.caps.holderName == "" {
		return true, nil
	}
	holderPath := li.holderPath()
	_, err := li.client.Transaction(ctx,
		&zk.CheckVersionRequest{Path: n.path, Version: -1},
		&zk.CreateRequest{Path: holderPath, Data: []byte(path.Base(n.path)), Flags: zk.FlagEphemeral},
	)
	switch {
	case err == nil, errors.Is(err, zk.ErrNodeExists):
		// Ours, or someone holds, or our own claim succeeded but its reply
		// was lost.
	case errors.Is(err, zk.ErrNoNode):
		return false, vanished(n.path)
	default:
		return false, errorf("claim %s: %w", holderPath, err)
	}
	token, err := li.holderToken(ctx, n)
	if err != nil || token == 0 {
		return false, err
	}
	won, err := li.yieldToFair(ctx, n)
	if won {
		n.token = token
	}
	return won, err
}

// holderToken reads the holder node: its creation zxid when it is ours (it
// names our node and belongs to our node's session), else 0.
func (li *lockInternals) holderToken(ctx context.Context, n *lockNode) (int64, error) {
	holderPath := li.holderPath()
	data, stat, err := li.client.GetData(ctx, holderPath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return 0, nil
	case err != nil:
		return 0, errorf("read %s: %w", holderPath, err)
	case string(data) != path.Base(n.path) || !li.ownedByUs(stat, n):
		return 0, nil
	}
	return stat.Czxid, nil
}

// ownedByUs reports whether a holder node belongs to the session of our node.
func (li *lockInternals) ownedByUs(stat *zk.Stat, n *lockNode) bool {
	if li.caps.sessionBound {
		return stat.EphemeralOwner == n.owner.ID()
	}
	return li.client.SessionOf(stat.EphemeralOwner).IsCurrent()
}

// yieldToFair completes a claim of a driver that yields to fair contenders:
// having created the holder node, it lists the contenders and, if any is
// fair, gives the holder node back and reports no hold. A fair contender that
// listed before our claim holds without knowing of it, but it exists, so we
// find it here; one that lists after our claim sees the holder node first and
// waits for it. So an unfair and a fair contender never hold together.
func (li *lockInternals) yieldToFair(ctx context.Context, n *lockNode) (bool, error) {
	if !li.caps.yieldsToFair {
		return true, nil
	}
	names, err := li.contenders(ctx)
	if err == nil && !slices.ContainsFunc(names, isFairContender) {
		return true, nil
	}
	// A fair contender exists, or we cannot tell: give the holder node back.
	if rerr := li.giveBack(ctx, n); rerr != nil {
		return false, rerr
	}
	return false, err
}

// isFairContender reports whether a mutex contender's node is a fair one:
// neither the unfair holder node nor an unfair contender's.
func isFairContender(name string) bool {
	return name != UnfairHolderNodeName && !isUnfairNode(name)
}

// holderTries bounds the tries of giveBack and releaseHolding.
const holderTries = 16

// giveBack deletes the holder node that we claimed but may not keep, and
// keeps our node. A give-back whose reply was lost may have applied, and
// another contender's holder node may stand by the time we could send it
// again, so each try first reads the holder node and stops once it is not
// ours; then it deletes it, checked against our node (while that exists,
// our session lives and the holder node we read stays ours), sent once.
func (li *lockInternals) giveBack(ctx context.Context, n *lockNode) error {
	err := li.onHolder(ctx, *n, func(ours *zk.Stat) []any {
		if ours == nil {
			return nil
		}
		return []any{
			&zk.CheckVersionRequest{Path: n.path, Version: -1},
			&zk.DeleteRequest{Path: li.holderPath(), Version: ours.Version},
		}
	})
	if errors.Is(err, zk.ErrNoNode) {
		return vanished(n.path)
	}
	if err != nil {
		return errorf("give back %s: %w", li.holderPath(), err)
	}
	return nil
}

// releaseHolding deletes our node and, in the same transaction, the holder
// node when it is ours (it names our node and belongs to our node's
// session): a hold's release, or an attempt's whose claim may have applied
// unseen. A holder node that is not ours is left alone, and our node goes
// even when the holder node is missing.
func (li *lockInternals) releaseHolding(ctx context.Context, n lockNode) error {
	err := li.onHolder(ctx, n, func(ours *zk.Stat) []any {
		ops := []any{&zk.DeleteRequest{Path: n.path, Version: -1}}
		if ours != nil {
			ops = append(ops, &zk.DeleteRequest{Path: li.holderPath(), Version: ours.Version})
		}
		return ops
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil // our node is gone
	}
	return err // the caller names our node; the request that failed names its own
}

// onHolder reads the holder node and sends, once, the transaction that ops
// makes of it (ours is its Stat when it is ours, else nil), until one
// applies. After a connection loss it reads again rather than sending the
// same transaction twice. A NoNode error means that our node is gone.
func (li *lockInternals) onHolder(ctx context.Context, n lockNode, ops func(ours *zk.Stat) []any) error {
	bo := backoff.WithContext(backoff.NewExponentialBackOff(), ctx)
	for try := 1; ; try++ {
		data, stat, err := li.client.GetData(ctx, li.holderPath())
		var ours *zk.Stat
		switch {
		case err == nil && string(data) == path.Base(n.path) && li.ownedByUs(stat, &n):
			ours = stat
		case err != nil && !errors.Is(err, zk.ErrNoNode):
			return err
		}
		reqs := ops(ours)
		if len(reqs) == 0 {
			return nil
		}
		_, err = li.client.TransactionOnce(ctx, reqs...)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			if st, serr := li.client.Exists(ctx, n.path); serr == nil && st != nil {
				continue // the holder node went between our read and our transaction
			}
			return err
		case err == nil || !retry.IsRetryable(err) || try == holderTries:
			return err
		}
		sleep := bo.NextBackOff()
		if sleep == backoff.Stop {
			return err
		}
		select {
		case <-time.After(sleep):
		case <-ctx.Done():
			return joinErrors(err, ctx.Err())
		}
	}
}

// releaseHoldingLater goes on with releaseHolding in the background until it
// succeeds, the session of our node ends (its ephemeral nodes go with it), or
// the client closes.
func (li *lockInternals) releaseHoldingLater(n lockNode) {
	go func() {
		ctx := context.Background() // the client's closing ends its operations
		for range holderTries {
			select {
			case <-li.client.Done():
				return
			default:
			}
			if !n.owner.IsCurrent() || li.releaseHolding(ctx, n) == nil {
				return
			}
			select {
			case <-li.client.Done():
				return
			case <-n.owner.Done():
				return
			case <-time.After(li.client.SessionTimeout() / 4):
			}
		}
		li.client.Logger().Warn("giving up releasing a lock node and its holder node", zap.String("path", n.path))
	}()
}

func (li *lockInternals) holderPath() string {
	return framework.JoinPath(li.basePath, li.caps.holderName)
}

// releaseWithHolder is release for Holding drivers: a hold's release keeps
// trying through connection loss for up to twice the session timeout, by
// which time the session has come back or been declared lost (and its
// ephemeral nodes go with it), or as long as the caller's ctx allows (see
// cleanupBudget); what does not finish goes on in the background.
func (li *lockInternals) releaseWithHolder(ctx context.Context, n lockNode, held bool, g grace) error {
	if held {
		var cancel context.CancelFunc
		ctx, cancel = cleanupContext(ctx, li.client, 2*li.client.SessionTimeout(), g)
		defer cancel()
	}
	err := li.releaseHolding(ctx, n)
	if err != nil {
		if n.owner.ID() == 0 { // a node whose create did not report it: no claim can have applied
			return li.client.Delete(ctx, n.path, framework.Guaranteed(), framework.Quietly())
		}
		li.releaseHoldingLater(n)
	}
	return err
}
