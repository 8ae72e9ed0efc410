package locks_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// watchedBy returns the paths that session watches on srv (its "wchc"
// command).
func watchedBy(tb testing.TB, srv *zktest.Server, session int64) []string {
	tb.Helper()
	out, err := srv.FourLetter(context.Background(), "wchc")
	if err != nil {
		tb.Fatal(err)
	}
	var paths []string
	ours := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "0x"):
			ours = strings.TrimSpace(line) == fmt.Sprintf("0x%x", session)
		case ours:
			paths = append(paths, strings.TrimSpace(line))
		}
	}
	return paths
}

// A waiter whose node an operator deleted queues again; when it then gives
// up, while the holder and the contender before it stay, its session keeps
// no release-signal watch and no watch on the holder: only the data watch on
// the node it waited behind, which go-zookeeper cannot remove (it has no
// removeWatches) and which goes when that node changes. Once they end, no
// watch of the waiter's is left.
func TestWaiterWhoseNodeWasDeletedLeavesNoWatchWhenItGivesUp(t *testing.T) {
	const lockPath = "/watches/deleted-then-cancelled"
	c := startSignalChain(t, lockPath)
	ctx := testCtx(t)
	c.deleteWaiterNode(t, 3)
	session := c.waiterClient.SessionID()
	again := waitParticipants(t, c.holder, 3)[2]
	locktest.Eventually(t, 10*time.Second, "the waiter waiting again", func() bool {
		return slices.Contains(watchedBy(t, c.srv, session), again) // its own node's watch
	})
	c.cancelWaiter()
	if err := receive(t, c.waiterGot, "the waiter's Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiter Acquire: %v; want context.Canceled", err)
	}
	waiterWatches := func() []string {
		var w []string
		for _, p := range watchedBy(t, c.srv, session) {
			if p != "/zookeeper" && p != c.nodes[1] {
				w = append(w, p)
			}
		}
		return w
	}
	left := waiterWatches()
	for deadline := time.Now().Add(10 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = waiterWatches() {
		time.Sleep(10 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Fatalf("the waiter that gave up still watches %v", left)
	}
	if goroutinesRunning("releaseSignals.fireLater") {
		t.Error("the waiter's stale signals are still to be fired in the background")
	}
	must(t, c.holder.Release(ctx))
	awaitResult(t, c.middleGot, "the middle's Acquire")
	must(t, c.middle.Release(ctx))
	locktest.Eventually(t, 10*time.Second, "no watch of the waiter's session left", func() bool {
		w := watchedBy(t, c.srv, session)
		return len(w) == 0 || len(w) == 1 && w[0] == "/zookeeper"
	})
}
