package locks

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
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
// write node was gone. A pair whose write hold is no longer certain cannot
// downgrade (ErrLockLost).
func (d readLockDriver) downgrade(ctx context.Context, c *framework.Client, lockPath string, data []byte) (string, error) {
	write, ok := d.write.certainNode()
	if !ok {
		if !d.write.IsAcquiredInThisProcess() {
			return "", errWriteReleased
		}
		return "", fmt.Errorf("%w: downgrade of %s: the write lock is no longer held for certain", ErrLockLost, path.Dir(lockPath))
	}
	readPath := framework.JoinPath(path.Dir(lockPath),
		protection.Name(protection.NewID(), path.Base(lockPath)+rwFixForSorting(path.Base(write.path))))
	created, owner, err := createOwned(ctx, c, func(ctx context.Context) (string, error) {
		return readPath, createChecked(ctx, c, readPath, data, write.path)
	})
	switch {
	case errors.Is(err, zk.ErrNoNode) && !d.write.IsAcquiredInThisProcess():
		return "", errWriteReleased
	case errors.Is(err, zk.ErrNoNode):
		return "", fmt.Errorf("%w: downgrade: write node %s is gone", ErrLockLost, write.path)
	case err != nil && created != "":
		c.Delete(ctx, created, framework.Guaranteed(), framework.Quietly()) //nolint:errcheck // retried in the background
		return "", err
	case err != nil:
		return "", err
	case owner != write.owner:
		c.Delete(ctx, created, framework.Guaranteed(), framework.Quietly()) //nolint:errcheck // retried in the background
		return "", fmt.Errorf("%w: downgrade: the session that held %s is gone", ErrLockLost, write.path)
	}
	return created, nil
}

// createChecked creates the ephemeral node at nodePath in one transaction
// with a check that mustExist exists. A create whose reply was lost is found
// by its name on the next try (the name is protected, so it is ours).
func createChecked(ctx context.Context, c *framework.Client, nodePath string, data []byte, mustExist string) error {
	tried := false
	return c.RetryLoop(ctx, func(ctx context.Context) error {
		if tried {
			stat, err := c.Exists(ctx, nodePath)
			if err != nil || stat != nil {
				return err
			}
		}
		tried = true
		_, err := c.Transaction(ctx,
			&zk.CheckVersionRequest{Path: mustExist, Version: -1},
			&zk.CreateRequest{Path: nodePath, Data: data, Flags: zk.FlagEphemeral},
		)
		if errors.Is(err, zk.ErrNodeExists) {
			return nil
		}
		return err
	})
}
