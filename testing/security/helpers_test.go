package security_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// newMutex is the one place these tests build a mutex.
func newMutex(t *testing.T, c *framework.Client, path string) *locks.InterProcessMutex {
	t.Helper()
	m, err := locks.NewInterProcessMutex(c, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newSemaphore is the one place these tests build a semaphore.
func newSemaphore(t *testing.T, c *framework.Client, path string, leases int) *locks.InterProcessSemaphoreV2 {
	t.Helper()
	s, err := locks.NewInterProcessSemaphoreV2(c, path, leases)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
