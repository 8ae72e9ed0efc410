package locks_test

import (
	"context"
	"errors"
	"path"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

		"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// An unfair contender whose holder-node claim applied but whose reply was
// lost, and whose caller gives up while the connection is down, must not
// leave the holder node behind: its abandon finds no way to read the holder
// node (budget 0 while disconnected), deletes only its contender node
// (guaranteed, in the background) and the holder node, owned by a session
// that lives on, then blocks every contender, fair or unfair, until the
// client closes.
//
// Interleaving: A (unfair, through a proxy) lists [A], picks itself and sends
// the claim multi (check A; create holder-lock-); the server applies it, the
// reply is dropped and the connection severed; the proxy is paused so A
// cannot reconnect; A's caller cancels; claimHolder's Transaction returns
// the ctx error; abandon: ownsHolder's GetData fails at once, release falls
// back to a guaranteed Delete of A's node alone. The proxy resumes within
// the session: A's node goes, holder-lock- (A's session) stays.
func TestReviewMixedCancelledClaimWithLostReplyLeavesNoOrphanHolder(t *testing.T) {
	srv := zktest.StartServer(t)
	p := newProxy(t, srv.ConnectString())
	ctx := testCtx(t)
	const lockPath = "/review2/orphan-claim"
	ca := locktest.NewClient(t, p.Addr())
	cb := locktest.NewClient(t, srv.ConnectString())
	a := locks.NewInterProcessMutex(ca, lockPath, locks.WithDriver(locks.UnfairLockInternalsDriver{}))
	b := locks.NewInterProcessMutex(cb, lockPath, locks.WithDriver(locks.StandardLockInternalsDriver{}))

	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	onDisconnect(t, ca, func() {
		p.Pause()
		cancel()
	})
	p.LoseNextReply(zktest.OpMulti)
	err := a.Acquire(actx)
	if err == nil {
		t.Fatal("Acquire succeeded although its claim's reply was lost and its ctx cancelled")
	}
	if p.LostReplies() != 1 {
		t.Fatalf("lost replies = %d, want 1 (the claim)", p.LostReplies())
	}
	t.Logf("A's Acquire: %v", err)
	p.Resume()
	must(t, ca.BlockUntilConnected(ctx))
	if ca.SessionID() == 0 {
		t.Fatal("no session")
	}

	holderPath := path.Join(lockPath, locks.UnfairHolderNodeName)
	// Wait until A's contender node is gone (its guaranteed delete ran).
	locktest.Eventually(t, 10*time.Second, "A's contender node deleted", func() bool {
		names, _, err := cb.Children(ctx, lockPath)
		if err != nil {
			return false
		}
		for _, n := range names {
			if n != locks.UnfairHolderNodeName {
				return false
			}
		}
		return true
	})
	_, st, err := cb.GetData(ctx, holderPath)
	switch {
	case errors.Is(err, zk.ErrNoNode):
	case err != nil:
		t.Fatal(err)
	default:
		t.Errorf("orphan: %s of A's live session 0x%x stands after A's acquisition ended (owner 0x%x)", holderPath, ca.SessionID(), st.EphemeralOwner)
	}
	held, err := b.TryAcquire(ctx, 2*time.Second)
	must(t, err)
	if !held {
		t.Fatal("a fair contender cannot acquire a free lock: it waits for the orphan holder node")
	}
	must(t, b.Release(ctx))
}
