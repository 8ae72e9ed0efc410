package barriers_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/google/uuid"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestBarrierSetWaitRemove(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	a, err := barriers.NewDistributedBarrier(zkclient.New(t, srv.ConnectString()), "/gates/one")
	zktest.Must(t, err)
	b, err := barriers.NewDistributedBarrier(zkclient.New(t, srv.ConnectString()), "/gates/one")
	zktest.Must(t, err)
	zktest.Must(t, b.Wait(ctx)) // no barrier: passes at once
	zktest.Must(t, a.Set(ctx))
	zktest.Must(t, a.Set(ctx)) // idempotent

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := b.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on a set barrier = %v, want DeadlineExceeded", err)
	}
	done := make(chan error, 1)
	go func() { done <- b.Wait(ctx) }()
	zktest.Must(t, a.Remove(ctx))
	select {
	case err := <-done:
		zktest.Must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return after Remove")
	}
	zktest.Must(t, a.Remove(ctx)) // idempotent
}

func TestBarriersBadInput(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	if _, err := barriers.NewDistributedBarrier(nil, "/b"); !errors.Is(err, barriers.ErrInvalidArgument) || !strings.Contains(err.Error(), "nil client") {
		t.Errorf("nil client: %v", err)
	}
	if _, err := barriers.NewDistributedBarrier(c, "b"); !errors.Is(err, framework.ErrInvalidPath) {
		t.Errorf("bad path: %v", err)
	}
	if _, err := barriers.NewDistributedDoubleBarrier(c, "/b/../c", 2); !errors.Is(err, framework.ErrInvalidPath) {
		t.Errorf("bad path: %v", err)
	}
	if _, err := barriers.NewDistributedBarrier(c, "/"); !errors.Is(err, barriers.ErrInvalidArgument) || !strings.Contains(err.Error(), `"/"`) {
		t.Errorf("barrier at the root: %v", err)
	}
	if _, err := barriers.NewDistributedDoubleBarrier(c, "/", 2); !errors.Is(err, barriers.ErrInvalidArgument) || !strings.Contains(err.Error(), `"/"`) {
		t.Errorf("double barrier at the root: %v", err)
	}
	for _, n := range []int{0, -3} {
		if _, err := barriers.NewDistributedDoubleBarrier(c, "/b", n); !errors.Is(err, barriers.ErrInvalidArgument) || !strings.Contains(err.Error(), "member count") {
			t.Errorf("member count %d: %v", n, err)
		}
	}
	d, err := barriers.NewDistributedDoubleBarrier(c, "/b", 1)
	zktest.Must(t, err)
	if err := d.Leave(zktest.TestContext(t)); !errors.Is(err, barriers.ErrNotEntered) {
		t.Errorf("Leave without Enter: %v", err)
	}
}

// Three members: none passes Enter before the third has entered; the nodes
// are Curator's (UUID members and "ready"); all leave together and nothing
// is left. The order of leaving is leave_test.go's.
func TestDoubleBarrierEnterAndLeave(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	observer := zkclient.New(t, srv.ConnectString())
	const n = 3
	members := make([]*barriers.DistributedDoubleBarrier, n)
	for i := range members {
		var err error
		members[i], err = barriers.NewDistributedDoubleBarrier(zkclient.New(t, srv.ConnectString()), "/double/job", n)
		zktest.Must(t, err)
	}
	entered := make(chan error, n)
	for _, m := range members[:n-1] {
		go func() { entered <- m.Enter(ctx) }()
	}
	zktest.Eventually(t, 10*time.Second, "two members' nodes", func() bool {
		kids, _, err := observer.Children(ctx, "/double/job")
		return err == nil && len(kids) == n-1
	})
	select {
	case err := <-entered:
		t.Fatalf("a member passed Enter with %d of %d members: %v", n-1, n, err)
	default:
	}
	zktest.Must(t, members[n-1].Enter(ctx))
	for i := 0; i < n-1; i++ {
		select {
		case err := <-entered:
			zktest.Must(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("a member did not pass Enter once all had entered")
		}
	}
	kids, _, err := observer.Children(ctx, "/double/job")
	zktest.Must(t, err)
	if !slices.Contains(kids, "ready") || len(kids) != n+1 {
		t.Fatalf("children %v, want %d members and ready", kids, n)
	}
	for _, k := range kids {
		if _, err := uuid.Parse(k); k != "ready" && (err != nil || len(k) != 36) {
			t.Errorf("member node %q is not a UUID", k)
		}
	}

	left := make(chan error, n)
	for _, m := range members {
		go func() { left <- m.Leave(ctx) }()
	}
	for range n {
		select {
		case err := <-left:
			zktest.Must(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("a member did not pass Leave once all were leaving")
		}
	}
	kids, err = children(ctx, observer, "/double/job")
	if err != nil || len(kids) != 0 {
		t.Fatalf("children left behind: %v", kids)
	}
}

// A cancelled Enter deletes its member node (in the background: Enter
// returns when its ctx ends).
func TestDoubleBarrierCancelledEnterLeavesNoNode(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	m, err := barriers.NewDistributedDoubleBarrier(c, "/double/cancel", 2)
	zktest.Must(t, err)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := m.Enter(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Enter alone = %v, want DeadlineExceeded", err)
	}
	zktest.Eventually(t, 10*time.Second, "no member node after a cancelled Enter", func() bool {
		kids, err := children(ctx, c, "/double/cancel")
		return err == nil && len(kids) == 0
	})
}

// A member whose session is lost while it waits in Enter does not enter
// on its stale node: Enter fails with ErrMembershipLost and the node is
// deleted, so another member alone does not open the barrier.
func TestDoubleBarrierSessionLostWhileEntering(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	ac := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(1200*time.Millisecond))
	a, err := barriers.NewDistributedDoubleBarrier(ac, "/double/lost", 2)
	zktest.Must(t, err)
	observer := zkclient.New(t, srv.ConnectString())
	done := make(chan error, 1)
	go func() { done <- a.Enter(ctx) }()
	zktest.Eventually(t, 10*time.Second, "a's node", func() bool {
		kids, _, err := observer.Children(ctx, "/double/lost")
		return err == nil && len(kids) == 1
	})
	// The server answers a session's requests in order: once this read is
	// answered, so is a's create. Pausing before the answer reached a would
	// test another case, where the create is retried in the new session and
	// Enter rightly goes on waiting there.
	if _, err := ac.Exists(ctx, "/double/lost"); err != nil {
		t.Fatalf("a read on a's session: %v", err)
	}
	proxy.Pause()
	zktest.Eventually(t, 10*time.Second, "a gives up its session", func() bool { return ac.State() == framework.Lost })
	proxy.Resume()
	select {
	case err := <-done:
		if !errors.Is(err, barriers.ErrMembershipLost) {
			t.Fatalf("Enter after a lost session = %v, want ErrMembershipLost", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Enter did not end after its session was lost")
	}
	zktest.Eventually(t, 10*time.Second, "a's stale node gone", func() bool {
		kids, err := children(ctx, observer, "/double/lost")
		return err == nil && len(kids) == 0
	})
	b, err := barriers.NewDistributedDoubleBarrier(observer, "/double/lost", 2)
	zktest.Must(t, err)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := b.Enter(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a lone member's Enter = %v, want DeadlineExceeded", err)
	}
}

// children lists the children of path; none when path is gone (an empty
// container parent is removed by the server).
func children(ctx context.Context, c *framework.Client, path string) ([]string, error) {
	kids, _, err := c.Children(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	return kids, err
}

// A member that entered and then lost its session does not leave as if it
// had been in all along: Leave deletes the stale node if it is still there
// and fails with ErrMembershipLost.
func TestDoubleBarrierLeaveAfterSessionLost(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	ac := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(1200*time.Millisecond))
	a, err := barriers.NewDistributedDoubleBarrier(ac, "/double/leave-lost", 1)
	zktest.Must(t, err)
	zktest.Must(t, a.Enter(ctx))
	session := ac.SessionID()
	proxy.Pause()
	zktest.Eventually(t, 10*time.Second, "a gives up its session", func() bool { return ac.State() == framework.Lost })
	proxy.Resume()
	zktest.Eventually(t, 10*time.Second, "a new session", func() bool {
		return ac.SessionID() != 0 && ac.SessionID() != session
	})
	if err := a.Leave(ctx); !errors.Is(err, barriers.ErrMembershipLost) {
		t.Fatalf("Leave after a lost session = %v, want ErrMembershipLost", err)
	}
	observer := zkclient.New(t, srv.ConnectString())
	kids, err := children(ctx, observer, "/double/leave-lost")
	zktest.Must(t, err)
	if slices.Contains(kids, a.MemberPath()[len("/double/leave-lost/"):]) {
		t.Fatalf("stale member node left: %v", kids)
	}
}

// The reply to the member node's create is lost: the node the server made
// is found as ours, and the member enters with exactly one node.
func TestDoubleBarrierMemberCreateReplyLost(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, proxy.Addr())
	_, err := c.Create(ctx, "/double/lost-create", nil, framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	a, err := barriers.NewDistributedDoubleBarrier(c, "/double/lost-create", 2)
	zktest.Must(t, err)
	proxy.LoseNextReply(zktest.OpCreate, zktest.OpCreate2)
	done := make(chan error, 1)
	go func() { done <- a.Enter(ctx) }()
	observer := zkclient.New(t, srv.ConnectString())
	zktest.Eventually(t, 10*time.Second, "the lost reply", func() bool { return proxy.LostReplies() == 1 })
	b, err := barriers.NewDistributedDoubleBarrier(observer, "/double/lost-create", 2)
	zktest.Must(t, err)
	zktest.Must(t, b.Enter(ctx))
	select {
	case err := <-done:
		zktest.Must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the member whose create reply was lost did not enter")
	}
	kids, err := children(ctx, observer, "/double/lost-create")
	zktest.Must(t, err)
	if len(kids) != 3 || !slices.Contains(kids, "ready") {
		t.Fatalf("children %v, want two members and ready", kids)
	}
}
