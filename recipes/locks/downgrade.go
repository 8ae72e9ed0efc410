package locks

import (
	"context"
	"errors"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// errWriteReleased reports that the pair's write lock was released before a
// downgrade could take its place; the reader then queues like any other.
var errWriteReleased = errors.New("the write lock was released before the downgrade")

// downgrade creates the read node of a pair that holds its write lock: a
// protected plain ephemeral node with the write node's sequence (Curator
// 5.5's downgrade), so that releasing the write lock lets no queued writer in.
// The node is created in one transaction with a check that the write node
// still exists, and only from the session that owns the write node: a read
// node can never land ahead of a writer that was granted the lock after our
// write node was gone. It returns the read node and the fencing token of its
// hold: the write hold's. A pair whose write hold is no longer certain cannot
// downgrade (ErrLockLost); a downgrade that fails leaves no read node behind.
func (d readLockDriver) downgrade(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, int64, error) {
	write, ok := d.write.certainNode()
	token := write.token
	switch {
	case (!ok || token == 0) && !d.write.IsAcquiredInThisProcess():
		return "", 0, errWriteReleased // by another goroutine, meanwhile
	case !ok || token == 0:
		return "", 0, errorf("%w: downgrade of %s: the write lock is no longer held for certain", ErrLockLost, path.Dir(lockPath))
	}
	readPath := framework.JoinPath(path.Dir(lockPath),
		protection.Name(protection.NewID(), path.Base(lockPath)+rwFixForSorting(path.Base(write.path))))
	_, owner, err := owned.Create(ctx, c, func(ctx context.Context) (string, error) {
		return readPath, createChecked(ctx, c, readPath, data, write.path)
	})
	switch {
	case err == nil && owner.ID() == 0:
		err = vanished(readPath)
	case err == nil && owner.ID() != write.owner.ID():
		err = errorf("%w: downgrade: the session that held %s is gone", ErrLockLost, write.path)
	}
	if err != nil {
		// A create whose reply was lost may have made the node: delete it,
		// in the background if ctx is done or the connection is down.
		_ = c.Delete(ctx, readPath, framework.Guaranteed(), framework.Quietly())
	}
	switch {
	case errors.Is(err, zk.ErrNoNode) && !d.write.IsAcquiredInThisProcess():
		return "", 0, errWriteReleased
	case errors.Is(err, zk.ErrNoNode):
		return "", 0, errorf("%w: downgrade: write node %s is gone", ErrLockLost, write.path)
	case err != nil:
		return "", 0, err
	}
	return readPath, token, nil
}

// createChecked makes sure the ephemeral node at nodePath exists, created in
// one transaction with a check that mustExist exists. Its name is protected,
// so a node found there is ours, and was made while mustExist existed: it
// looks for it before every new try and after a failed check, since the
// transaction itself retries a lost reply, which the check then fails.
func createChecked(ctx context.Context, c *framework.Client, nodePath string, data []byte, mustExist string) error {
	tried := false
	exists := func(ctx context.Context) (bool, error) {
		stat, err := c.Exists(ctx, nodePath)
		return stat != nil, err
	}
	return c.RetryLoop(ctx, func(ctx context.Context) error {
		if tried {
			if ok, err := exists(ctx); err != nil || ok {
				return err
			}
		}
		tried = true
		_, err := c.Transaction(ctx,
			&zk.CheckVersionRequest{Path: mustExist, Version: -1},
			&zk.CreateRequest{Path: nodePath, Data: data, Flags: zk.FlagEphemeral},
		)
		switch {
		case errors.Is(err, zk.ErrNodeExists):
			return nil
		case errors.Is(err, zk.ErrNoNode):
			if ok, xerr := exists(ctx); xerr != nil || ok {
				return xerr
			}
		}
		return err
	})
}
