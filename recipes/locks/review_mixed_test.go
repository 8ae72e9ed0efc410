package locks_test

import (
	"context"
	"errors"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
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
func TestReviewMixedClaimWithLostReplyLeavesNoOrphanHolder(t *testing.T) {
	srv := zktest.StartServer(t)
	for _, tc := range []struct {
		name   string
		cancel bool // the caller cancels once disconnected; else its retry policy gives up
		client func(connect string) *framework.Client
	}{
		{"caller cancels", true, func(connect string) *framework.Client {
			return locktest.NewClient(t, connect)
		}},
		{"retry policy gives up", false, func(connect string) *framework.Client {
			return reviewClient(t, connect, retry.OneTime{Sleep: 50 * time.Millisecond},
				framework.WithSessionTimeout(6*time.Second), framework.WithConnectionTimeout(200*time.Millisecond))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProxy(t, srv.ConnectString())
			ctx := testCtx(t)
			lockPath := "/review2/orphan-claim/" + tc.name
			ca := tc.client(p.Addr())
			cb := locktest.NewClient(t, srv.ConnectString())
			a := locks.NewInterProcessMutex(ca, lockPath, locks.WithDriver(locks.UnfairLockInternalsDriver{}))
			b := locks.NewInterProcessMutex(cb, lockPath, locks.WithDriver(locks.StandardLockInternalsDriver{}))

			actx, cancel := context.WithCancel(ctx)
			defer cancel()
			onDisconnect(t, ca, func() {
				p.Pause()
				if tc.cancel {
					cancel()
				}
			})
			p.LoseNextReply(zktest.OpMulti)
			err := a.Acquire(actx)
			if err == nil {
				t.Fatal("Acquire succeeded although its claim's reply was lost and the connection stayed down")
			}
			if p.LostReplies() != 1 {
				t.Fatalf("lost replies = %d, want 1 (the claim)", p.LostReplies())
			}
			t.Logf("A's Acquire: %v", err)
			p.Resume()
			must(t, ca.BlockUntilConnected(ctx))

			// Wait until A's contender node is gone (its guaranteed delete ran).
			locktest.Eventually(t, 10*time.Second, "A's contender node deleted", func() bool {
				names, _, err := cb.Children(ctx, lockPath)
				return err == nil && !slices.ContainsFunc(names, func(n string) bool {
					return n != locks.UnfairHolderNodeName
				})
			})
			holderPath := path.Join(lockPath, locks.UnfairHolderNodeName)
			_, st, err := cb.GetData(ctx, holderPath)
			switch {
			case errors.Is(err, zk.ErrNoNode):
			case err != nil:
				t.Fatal(err)
			default:
				t.Errorf("orphan: %s of session 0x%x stands after A's acquisition ended (A's live session 0x%x)",
					holderPath, st.EphemeralOwner, ca.SessionID())
			}
			held, err := b.TryAcquire(ctx, time.Second)
			must(t, err)
			if !held {
				t.Fatal("a fair contender cannot acquire a free lock: it waits for the orphan holder node")
			}
			must(t, b.Release(ctx))
		})
	}
}

// reviewClient is locktest.NewClient with a retry policy of its own.
func reviewClient(t *testing.T, connect string, policy retry.Policy, opts ...framework.Option) *framework.Client {
	t.Helper()
	c, err := framework.NewClient(connect, policy, opts...)
	if err != nil {
		t.Fatalf("framework.NewClient(%q): %v", connect, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	must(t, c.Start())
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	must(t, c.BlockUntilConnected(ctx))
	return c
}
