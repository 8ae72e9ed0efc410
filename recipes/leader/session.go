package leader

import (
	"context"
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// createOwned is owned.Create; an owner of 0 means the node was gone
// already, so the caller drops it.
func createOwned(ctx context.Context, c *framework.Client, create func(context.Context) (string, error)) (string, int64, error) {
	p, owner, err := owned.Create(ctx, c, create)
	if err != nil && p != "" {
		return p, 0, fmt.Errorf("leader: %w", err)
	}
	return p, owner, err
}

// isCurrent is owned.IsCurrent.
func isCurrent(c *framework.Client, owner int64) bool { return owned.IsCurrent(c, owner) }
