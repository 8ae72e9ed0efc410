package barriers_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Four members leave one by one in a scripted order, each settled in its
// leave before the next starts: none returns before the last has started
// leaving, and Curator's protocol holds node for node: the member with the
// lowest node keeps it, watching the highest, until it is alone; every
// other member deletes its node at once.
func TestDoubleBarrierLeaveOrder(t *testing.T) {
	for _, script := range []string{"lowest first", "lowest second to last"} {
		t.Run(strings.ReplaceAll(script, " ", "_"), func(t *testing.T) {
			srv := zktest.StartServer(t)
			ctx := zktest.TestContext(t)
			observer := zkclient.New(t, srv.ConnectString())
			const n, path = 4, "/double/order"
			members := make([]*barriers.DistributedDoubleBarrier, n)
			entered := make(chan error, n)
			for i := range members {
				var err error
				members[i], err = barriers.NewDistributedDoubleBarrier(zkclient.New(t, srv.ConnectString()), path, n)
				zktest.Must(t, err)
				go func() { entered <- members[i].Enter(ctx) }()
			}
			for range n {
				zktest.Must(t, <-entered)
			}
			slices.SortFunc(members, func(a, b *barriers.DistributedDoubleBarrier) int {
				return strings.Compare(a.MemberPath(), b.MemberPath())
			})
			order := slices.Clone(members) // lowest first
			if script == "lowest second to last" {
				order = append(slices.Clone(members[1:n-1]), members[0], members[n-1])
			}
			left := make(chan error, n)
			for k, m := range order {
				go func() { left <- m.Leave(ctx) }()
				if k == n-1 {
					break
				}
				if m == members[0] {
					awaitWatch(t, ctx, srv, members[n-1].MemberPath())
					if stat, err := observer.Exists(ctx, m.MemberPath()); err != nil || stat == nil {
						t.Fatalf("the lowest member's node is gone while %d members have not started leaving (%v)", n-1-k, err)
					}
				} else {
					zktest.Eventually(t, 10*time.Second, "a leaving member's node deleted", func() bool {
						stat, err := observer.Exists(ctx, m.MemberPath())
						return err == nil && stat == nil
					})
				}
				select {
				case err := <-left:
					t.Fatalf("a Leave returned (%v) while %d members had not started leaving", err, n-1-k)
				default:
				}
			}
			for range n {
				select {
				case err := <-left:
					zktest.Must(t, err)
				case <-time.After(10 * time.Second):
					t.Fatal("a member did not pass Leave once all had started leaving")
				}
			}
			zktest.Eventually(t, 10*time.Second, "no member or ready node left", func() bool {
				kids, err := children(ctx, observer, path)
				return err == nil && len(kids) == 0
			})
		})
	}
}

// awaitWatch waits until some session watches nodePath.
func awaitWatch(t *testing.T, ctx context.Context, srv *zktest.Server, nodePath string) {
	t.Helper()
	zktest.Eventually(t, 10*time.Second, fmt.Sprintf("a watch on %s", nodePath), func() bool {
		counts, err := srv.WatchCounts(ctx)
		return err == nil && counts[nodePath] > 0
	})
}

// The lowest member, waiting in Leave with its node kept, loses its
// session: Leave fails with ErrMembershipLost, its stale node goes, and the
// other member then leaves.
func TestDoubleBarrierLowestLosesItsSessionInLeave(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	const path = "/double/lowest-lost"
	observer := zkclient.New(t, srv.ConnectString())
	ac := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(1200*time.Millisecond))
	b, err := barriers.NewDistributedDoubleBarrier(observer, path, 2)
	zktest.Must(t, err)
	a := lowerMember(t, ac, path, b)
	entered := make(chan error, 1)
	go func() { entered <- b.Enter(ctx) }()
	zktest.Must(t, a.Enter(ctx))
	zktest.Must(t, <-entered)

	left := make(chan error, 1)
	go func() { left <- a.Leave(ctx) }()
	awaitWatch(t, ctx, srv, b.MemberPath())
	proxy.Pause()
	zktest.Eventually(t, 10*time.Second, "a gives up its session", func() bool { return ac.State() == framework.Lost })
	proxy.Resume()
	select {
	case err := <-left:
		if !errors.Is(err, barriers.ErrMembershipLost) {
			t.Fatalf("Leave of the lowest after its session was lost = %v, want ErrMembershipLost", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Leave did not end after its session was lost")
	}
	zktest.Must(t, b.Leave(ctx))
}

// lowerMember returns a member of the barrier at path (of two members)
// whose node name is lower than than's. Names are random UUIDs; half are.
func lowerMember(t *testing.T, c *framework.Client, path string, than *barriers.DistributedDoubleBarrier) *barriers.DistributedDoubleBarrier {
	t.Helper()
	// Names are random UUIDs made locally; 64 tries missed about once in 65
	// runs (when than's name is among the lowest), 4096 about once in 4097.
	for range 4096 {
		m, err := barriers.NewDistributedDoubleBarrier(c, path, 2)
		zktest.Must(t, err)
		if m.MemberPath() < than.MemberPath() {
			return m
		}
	}
	t.Fatal("no lower member name in 4096 tries")
	return nil
}

// A Leave cancelled while its member holds the lowest node returns with its
// ctx, saying what it waited for, and deletes the node; the member waiting
// for it then leaves.
func TestDoubleBarrierCancelledLeaveOfTheLowest(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const path = "/double/lowest-cancel"
	observer := zkclient.New(t, srv.ConnectString())
	b, err := barriers.NewDistributedDoubleBarrier(zkclient.New(t, srv.ConnectString()), path, 2)
	zktest.Must(t, err)
	a := lowerMember(t, zkclient.New(t, srv.ConnectString()), path, b)
	entered := make(chan error, 1)
	go func() { entered <- b.Enter(ctx) }()
	zktest.Must(t, a.Enter(ctx))
	zktest.Must(t, <-entered)

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err = a.Leave(short)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for every other member to leave") {
		t.Fatalf("a cancelled Leave of the lowest = %v, want DeadlineExceeded saying what it waited for", err)
	}
	zktest.Eventually(t, 10*time.Second, "the lowest's node deleted", func() bool {
		stat, err := observer.Exists(ctx, a.MemberPath())
		return err == nil && stat == nil
	})
	zktest.Must(t, b.Leave(ctx))
}
