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
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
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
func TestMixedClaimWithLostReplyLeavesNoOrphanHolder(t *testing.T) {
	srv := zktest.StartServer(t)
	for _, tc := range []struct {
		name   string
		cancel bool // the caller cancels once disconnected; else its retry policy gives up
		client func(connect string) *framework.Client
	}{
		{"caller cancels", true, func(connect string) *framework.Client {
			return zkclient.New(t, connect)
		}},
		{"retry policy gives up", false, func(connect string) *framework.Client {
			return zkclient.NewWithPolicy(t, connect, retry.OneTime{Sleep: 50 * time.Millisecond},
				framework.WithSessionTimeout(6*time.Second), framework.WithConnectionTimeout(200*time.Millisecond))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := zktest.StartProxy(t, srv.ConnectString())
			ctx := zktest.TestContext(t)
			lockPath := "/review2/orphan-claim/" + tc.name
			ca := tc.client(p.Addr())
			cb := zkclient.New(t, srv.ConnectString())
			a := built(locks.NewInterProcessMutex(ca, lockPath, locks.WithDriver(locks.UnfairLockInternalsDriver{})))
			b := built(locks.NewInterProcessMutex(cb, lockPath, locks.WithDriver(locks.StandardLockInternalsDriver{})))

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
			zktest.Must(t, ca.BlockUntilConnected(ctx))

			// Wait until A's contender node is gone (its guaranteed delete ran).
			zktest.Eventually(t, 10*time.Second, "A's contender node deleted", func() bool {
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
			zktest.Must(t, err)
			if !held {
				t.Fatal("a fair contender cannot acquire a free lock: it waits for the orphan holder node")
			}
			zktest.Must(t, b.Release(ctx))
		})
	}
}

// fixedUnfair is the unfair driver with a chosen suffix, so that a test
// decides which unfair contender sorts first. It inherits the holder node
// and the yielding to fair contenders.
type fixedUnfair struct {
	locks.UnfairLockInternalsDriver
	suffix string // ten digits
}

func (d fixedUnfair) CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error) {
	return c.Create(ctx, path+"u"+d.suffix, data,
		framework.WithMode(framework.Ephemeral), framework.WithProtection(), framework.CreatingParentContainersIfNeeded())
}

// An unfair contender's give-back of the holder node must not be sent again
// after a lost reply: by then another unfair contender may hold, and a
// re-sent delete would take its holder node (giveBack reads first).
//
// Interleaving: U1 (unfair, suffix u9..., through a slow proxy) lists [U1],
// picks itself and claims holder-lock-. F (fair) creates its node before
// U1's yieldToFair listing, which finds F: U1 sends the give-back. The server
// applies it; the reply is lost and U1's connection severed. F holds (the
// holder node is gone) and releases. U2 (unfair, suffix u1..., below U1)
// lists [U2, U1], picks itself, claims holder-lock- and, seeing no fair
// node, holds. U1 reconnects within its session: its give-back must leave
// U2's holder node alone, so a fair F2 waits for U2, and once U2 releases,
// U1 holds.
func TestMixedGiveBackRetryLeavesAnotherHoldersNodeAlone(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const lockPath = "/review2/give-back"
	holderPath := path.Join(lockPath, locks.UnfairHolderNodeName)
	obs := zkclient.New(t, srv.ConnectString())
	cu1 := zkclient.New(t, p.Addr())
	u1 := built(locks.NewInterProcessMutex(cu1, lockPath, locks.WithDriver(fixedUnfair{suffix: "9000000000"})))
	u2 := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath,
		locks.WithDriver(fixedUnfair{suffix: "1000000000"})))
	fair := locks.WithDriver(locks.StandardLockInternalsDriver{})
	f := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath, fair))
	f2 := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath, fair))

	p.SetLatency(150 * time.Millisecond)
	u1Got := make(chan error, 1)
	u1ctx, cancelU1 := context.WithCancel(ctx)
	defer cancelU1()
	go func() { u1Got <- u1.Acquire(u1ctx) }()
	zktest.Eventually(t, 10*time.Second, "U1's claim of the holder node", func() bool {
		_, _, err := obs.GetData(ctx, holderPath)
		return err == nil
	})
	p.LoseNextReply(zktest.OpMulti) // the give-back
	fGot := make(chan error, 1)
	go func() { fGot <- f.Acquire(ctx) }()
	awaitResult(t, fGot, "F once U1 gave the holder node back")
	zktest.Eventually(t, 5*time.Second, "U1's give-back reply lost", func() bool { return p.LostReplies() == 1 })
	zktest.Must(t, f.Release(ctx))
	held, err := u2.TryAcquire(ctx, 5*time.Second)
	zktest.Must(t, err)
	if !held {
		t.Fatal("U2 does not hold the free lock")
	}
	// The lost reply's sever reaches U1 only now (the proxy's latency): U1
	// reconnects and looks at the holder node again.
	zktest.Eventually(t, 10*time.Second, "U1 reconnected after its lost reply", func() bool {
		return cu1.ConnectionLosses() > 0 && cu1.State().IsConnected()
	})
	p.SetLatency(0)
	data, _, err := obs.GetData(ctx, holderPath)
	zktest.Must(t, err)
	u2Nodes, err := u2.ParticipantNodes(ctx)
	zktest.Must(t, err)
	if !slices.ContainsFunc(u2Nodes, func(n string) bool { return path.Base(n) == string(data) }) {
		t.Fatalf("holder node names %q after U1's give-back; want U2's node", data)
	}

	held, err = f2.TryAcquire(ctx, 2*time.Second)
	zktest.Must(t, err)
	if held {
		t.Errorf("fair F2 holds beside unfair U2: U1's give-back took U2's holder node")
		zktest.Must(t, f2.Release(ctx))
	}
	select {
	case <-u2.Lost():
		t.Error("U2's hold was lost although nothing happened to its session")
	default:
	}
	zktest.Must(t, u2.Release(ctx))
	select {
	case err := <-u1Got:
		zktest.Must(t, err)
		zktest.Must(t, u1.Release(ctx))
	case <-time.After(5 * time.Second):
		names, _, _ := obs.Children(ctx, lockPath)
		t.Errorf("U1 still waits 5s after everyone released; children %v", names)
		cancelU1()
		if err := <-u1Got; !errors.Is(err, context.Canceled) {
			t.Fatalf("U1's Acquire after cancel: %v", err)
		}
	}
}
