package locks_test

import (
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// Every sentinel error of the package says where it comes from.
func TestSentinelErrorsCarryThePackagePrefix(t *testing.T) {
	for _, err := range []error{locks.ErrNotOwner, locks.ErrUpgrade, locks.ErrLockLost} {
		if !strings.HasPrefix(err.Error(), "locks: ") {
			t.Errorf("sentinel error %q does not start with %q", err, "locks: ")
		}
	}
}
