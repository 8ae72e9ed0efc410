package nodes

import (
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// validateTarget checks what every constructor of the package needs: a
// client and a path ZooKeeper accepts that is not the root.
func validateTarget(c *framework.Client, path string) error {
	switch {
	case c == nil:
		return fmt.Errorf("%w: nil client", ErrInvalidArgument)
	case path == "/":
		return fmt.Errorf("%w: path %q is the root", ErrInvalidArgument, path)
	}
	if err := framework.ValidatePath(path); err != nil {
		return fmt.Errorf("%w: path %q: %v", ErrInvalidArgument, path, err)
	}
	return nil
}
