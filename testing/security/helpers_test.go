package security_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// newMutex is the one place these tests build a mutex.
func newMutex(t *testing.T, c *framework.Client, path string) *locks.InterProcessMutex {
	t.Helper()
	return locks.NewInterProcessMutex(c, path)
}

// newSemaphore is the one place these tests build a semaphore.
func newSemaphore(t *testing.T, c *framework.Client, path string, leases int) *locks.InterProcessSemaphoreV2 {
	t.Helper()
	return locks.NewInterProcessSemaphoreV2(c, path, leases)
}
