package locks_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Helpers of every test file in this package.

// shortSession is the session timeout of clients whose session a test lets
// expire.
const shortSession = 1500 * time.Millisecond

// waitParticipants waits until m's lock has n contenders, and returns them.
func waitParticipants(tb testing.TB, m *locks.InterProcessMutex, n int) []string {
	tb.Helper()
	var nodes []string
	zktest.Eventually(tb, 10*time.Second, fmt.Sprintf("%d participants", n), func() bool {
		var err error
		nodes, err = m.ParticipantNodes(context.Background())
		return err == nil && len(nodes) == n
	})
	return nodes
}

// closedWithin reports whether ch is closed within d.
func closedWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// assertClosed fails the test unless ch is closed.
func assertClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	default:
		t.Fatalf("%s is open; want closed", what)
	}
}

// receive returns what a goroutine sends on ch, failing the test if nothing
// arrives within 15 s. An error received must carry the package's prefix
// once (assertPrefixOnce).
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		if err, ok := any(v).(error); ok {
			assertPrefixOnce(t, err)
		}
		return v
	case <-time.After(15 * time.Second):
		t.Fatalf("%s: still waiting after 15s", what)
	}
	panic("unreachable")
}

// awaitResult waits for what a goroutine sends on got (see receive) and
// fails the test unless it is nil.
func awaitResult(t *testing.T, got <-chan error, what string) {
	t.Helper()
	if err := receive(t, got, what); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// assertPending fails the test if a goroutine already sent on got.
func assertPending(t *testing.T, got <-chan error, what string) {
	t.Helper()
	select {
	case err := <-got:
		t.Fatalf("%s returned (err %v) while it should still wait", what, err)
	default:
	}
}

// built returns the lock that a constructor built, and panics when it
// refused: the tests build their locks of valid input.
func built[T any](lock T, err error) T {
	if err != nil {
		panic(err)
	}
	return lock
}
