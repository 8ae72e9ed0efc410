package locks_test

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A waiter whose session expires while it waits gets a new node in its new
// session and still acquires, leaving no node of the old session behind.
func TestMutexWaiterSurvivesItsOwnSessionExpiry(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := testCtx(t)
	holder := locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), "/waiter-expiry")
	waiterClient := locktest.NewClient(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	waiter := locks.NewInterProcessMutex(waiterClient, "/waiter-expiry")
	must(t, holder.Acquire(ctx))
	got := make(chan error, 1)
	go func() { got <- waiter.Acquire(ctx) }()
	first := waitParticipants(t, holder, 2)[1]
	oldSession := waiterClient.SessionID()

	proxy.Pause()
	// The server expires the waiter's session; its node goes.
	waitParticipants(t, holder, 1)
	proxy.Resume()
	locktest.Eventually(t, 10*time.Second, "waiter on a new session with a new node", func() bool {
		nodes, err := holder.ParticipantNodes(ctx)
		return err == nil && len(nodes) == 2 && nodes[1] != first && waiterClient.SessionID() != oldSession
	})
	must(t, holder.Release(ctx))
	select {
	case err := <-got:
		must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("waiter did not acquire after its session was replaced")
	}
	if nodes := waitParticipants(t, waiter, 1); nodes[0] != waiter.LockPath() {
		t.Fatalf("participants %v; want only %s", nodes, waiter.LockPath())
	}
	must(t, waiter.Release(ctx))
	waitParticipants(t, waiter, 0)
}

// The reply to the lock node's create is lost (the server created it, the
// client saw connection loss): protected mode finds the node, and the lock is
// taken with exactly one node.
func TestMutexCreateReplyLost(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := testCtx(t)
	c := locktest.NewClient(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	m := locks.NewInterProcessMutex(c, "/lost-reply")
	observer := locks.NewInterProcessMutex(locktest.NewClient(t, srv.ConnectString()), "/lost-reply")
	// Create the parent first so the armed create is the lock node's own.
	must(t, m.Acquire(ctx))
	must(t, m.Release(ctx))

	proxy.LoseNextReply(zktest.OpCreate, zktest.OpCreate2, zktest.OpCreateContainer)
	must(t, m.Acquire(ctx))
	if proxy.LostReplies() != 1 {
		t.Fatalf("LostReplies() = %d, want 1", proxy.LostReplies())
	}
	if nodes := waitParticipants(t, observer, 1); nodes[0] != m.LockPath() {
		t.Fatalf("participants %v; want only our node %s", nodes, m.LockPath())
	}
	must(t, m.Release(ctx))
	waitParticipants(t, observer, 0)
}
