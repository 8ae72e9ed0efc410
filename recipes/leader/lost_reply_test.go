package leader_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A reply lost at each step of a latch's life (its create, its listing of
// the queue, its watch on the node before it, its check of its own node as
// it leads, the delete by Close) costs the latch its connection, never a
// second node, a node left behind, or its turn: it leads once the holder
// before it leaves, with a higher token, and Close leaves nothing.
func TestLatchLostRepliesLeaveOneNode(t *testing.T) {
	srv := shared.Server(t)
	ctx := zktest.TestContext(t)
	for _, tc := range []struct {
		name string
		op   zktest.Op
	}{
		{"create", zktest.OpCreate},
		{"children", zktest.OpGetChildren2},
		{"watch", zktest.OpGetData},
		{"exists", zktest.OpExists},
		{"delete", zktest.OpDelete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fmt.Sprintf("/latch/lost-reply/%s", tc.name)
			obs := zkclient.New(t, srv.ConnectString())
			holder := startLatch(t, obs, dir, "holder")
			first := await(t, holder, 10*time.Second)
			proxy := newProxy(t, srv.ConnectString())
			c := zkclient.New(t, proxy.Addr())
			if tc.op != zktest.OpDelete {
				proxy.LoseNextReply(tc.op)
			}
			l := startLatch(t, c, dir, "x")
			zktest.Eventually(t, 10*time.Second, "x queued behind the holder", func() bool {
				ps, err := holder.Participants(ctx)
				return err == nil && len(ps) == 2 && ps[1].ID == "x"
			})
			zktest.Must(t, holder.Close(ctx))
			term := await(t, l, 15*time.Second)
			if term.Token <= first.Token {
				t.Fatalf("token %d after %d", term.Token, first.Token)
			}
			if ch := children(t, obs, dir); len(ch) != 1 {
				t.Fatalf("nodes while x leads: %v, want one", ch)
			}
			if tc.op == zktest.OpDelete {
				proxy.LoseNextReply(tc.op)
			}
			zktest.Must(t, l.Close(ctx))
			waitChildren(t, obs, dir, 0)
			if proxy.LostReplies() != 1 {
				t.Fatalf("%d replies lost, want the one to %s", proxy.LostReplies(), tc.name)
			}
		})
	}
}
