package zktest

import (
	"testing"
	"time"
)

// Eventually polls cond every 10 ms until it holds, and fails the test
// naming what it waited for when timeout passes first.
func Eventually(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
