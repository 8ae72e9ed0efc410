package locks

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// RevokeMessage is the data Curator writes to a lock node to ask its holder
// to release it.
const RevokeMessage = "__REVOKE__"

// AttemptRevoke asks the holder of the lock node at nodePath to release it by
// setting the node's data to RevokeMessage, as Curator's Revoker does. Holders
// that called MakeRevocable (in Go or in Java) are told; a missing node is
// not an error.
func AttemptRevoke(ctx context.Context, c *framework.Client, nodePath string) error {
	if c == nil {
		return errors.New("locks: AttemptRevoke: nil client")
	}
	if err := framework.ValidatePath(nodePath); err != nil {
		return fmt.Errorf("locks: AttemptRevoke: %w", err)
	}
	_, err := c.SetData(ctx, nodePath, []byte(RevokeMessage), -1)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("locks: revoke %s: %w", nodePath, err)
	}
	return nil
}
