package locks_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
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

// lockWatches returns paths less /zookeeper, which every client's session
// watches for its own bookkeeping.
func lockWatches(paths []string) []string {
	return slices.DeleteFunc(paths, func(p string) bool { return p == "/zookeeper" })
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
	ctx := zktest.TestContext(t)
	c.deleteWaiterNode(t, 3)
	session := c.waiterClient.SessionID()
	again := waitParticipants(t, c.holder, 3)[2]
	zktest.Eventually(t, 10*time.Second, "the waiter waiting again", func() bool {
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
	zktest.Must(t, c.holder.Release(ctx))
	awaitResult(t, c.middleGot, "the middle's Acquire")
	zktest.Must(t, c.middle.Release(ctx))
	zktest.Eventually(t, 10*time.Second, "no watch of the waiter's session left", func() bool {
		w := watchedBy(t, c.srv, session)
		return len(w) == 0 || len(w) == 1 && w[0] == "/zookeeper"
	})
}

// A waiter that holds while it still watches the release signal of a
// predecessor that gave up (no signal came) fires that signal in its
// release. When the release's transaction is cut off (its ctx ends while
// the connection is paused) and its node goes by the plain guaranteed
// delete, the signal is fired later, in the background: its watch does not
// stay on the server while the client is open.
func TestNoSignalWatchOutlivesAReleaseCutOffMidTransaction(t *testing.T) {
	const lockPath = "/watches/release-cut-off"
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	holder := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath))
	middle := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath))
	waiterClient := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	waiter := built(locks.NewInterProcessMutex(waiterClient, lockPath))

	zktest.Must(t, holder.Acquire(ctx))
	mctx, cancelMiddle := context.WithCancel(ctx)
	middleGot := make(chan error, 1)
	go func() { middleGot <- middle.Acquire(mctx) }()
	waitParticipants(t, holder, 2)
	waiterGot := make(chan error, 1)
	go func() { waiterGot <- waiter.Acquire(ctx) }()
	nodes := waitParticipants(t, holder, 3)
	signal := nodes[1] + ".released"
	session := waiterClient.SessionID()
	zktest.Eventually(t, 10*time.Second, "the waiter watching "+signal, func() bool {
		return slices.Contains(watchedBy(t, srv, session), signal)
	})
	cancelMiddle() // the middle gives up: no signal
	if err := receive(t, middleGot, "the middle's Acquire"); !errors.Is(err, context.Canceled) {
		t.Fatalf("middle Acquire: %v; want context.Canceled", err)
	}
	zktest.Must(t, holder.Release(ctx))
	awaitResult(t, waiterGot, "the waiter's Acquire")
	if !slices.Contains(watchedBy(t, srv, session), signal) {
		t.Fatalf("the holding waiter no longer watches %s: nothing left to test", signal)
	}

	proxy.Pause()
	rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err := waiter.Release(rctx)
	cancel()
	if err == nil {
		proxy.Resume()
		t.Fatal("a Release through a paused connection succeeded")
	}
	proxy.Sever()
	proxy.Resume()
	zktest.Must(t, waiterClient.BlockUntilConnected(ctx))
	zktest.Eventually(t, 15*time.Second, "the released node gone", func() bool {
		ps, err := holder.ParticipantNodes(ctx)
		return err == nil && len(ps) == 0
	})
	zktest.Eventually(t, 15*time.Second, "no watch on "+signal+" left", func() bool {
		return !slices.Contains(watchedBy(t, srv, session), signal)
	})
}
