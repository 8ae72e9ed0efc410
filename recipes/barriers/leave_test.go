package barriers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
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
			ctx := testCtx(t)
			observer := locktest.NewClient(t, srv.ConnectString())
			const n, path = 4, "/double/order"
			members := make([]*barriers.DistributedDoubleBarrier, n)
			entered := make(chan error, n)
			for i := range members {
				var err error
				members[i], err = barriers.NewDistributedDoubleBarrier(locktest.NewClient(t, srv.ConnectString()), path, n)
				must(t, err)
				go func() { entered <- members[i].Enter(ctx) }()
			}
			for range n {
				must(t, <-entered)
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
					locktest.Eventually(t, 10*time.Second, "a leaving member's node deleted", func() bool {
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
					must(t, err)
				case <-time.After(10 * time.Second):
					t.Fatal("a member did not pass Leave once all had started leaving")
				}
			}
			locktest.Eventually(t, 10*time.Second, "no member or ready node left", func() bool {
				kids, err := children(ctx, observer, path)
				return err == nil && len(kids) == 0
			})
		})
	}
}

// awaitWatch waits until some session watches nodePath.
func awaitWatch(t *testing.T, ctx context.Context, srv *zktest.Server, nodePath string) {
	t.Helper()
	locktest.Eventually(t, 10*time.Second, fmt.Sprintf("a watch on %s", nodePath), func() bool {
		counts, err := srv.WatchCounts(ctx)
		return err == nil && counts[nodePath] > 0
	})
}
