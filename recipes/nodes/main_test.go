package nodes_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/locktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// startNode starts n, waits for its first create and closes it when the
// test ends.
func startNode(t *testing.T, n *nodes.PersistentNode) {
	t.Helper()
	must(t, n.Start())
	t.Cleanup(func() { _ = n.Close(context.Background()) })
	must(t, n.WaitForInitialCreate(testCtx(t)))
}

// children lists parent's children as the server has them, sorted.
func children(t *testing.T, c *framework.Client, parent string) []string {
	t.Helper()
	ch, _, err := c.Children(testCtx(t), parent)
	must(t, err)
	sort.Strings(ch)
	return ch
}

// awaitStanding waits until parent has exactly one child, it is n's node,
// and (for an ephemeral node) the session that owns it is c's current one.
func awaitStanding(t *testing.T, admin, c *framework.Client, n *nodes.PersistentNode, parent string, ephemeral bool) string {
	t.Helper()
	var why string
	locktest.Eventually(t, 30*time.Second, "the node stands once: "+why, func() bool {
		ch, _, err := admin.Children(context.Background(), parent)
		if err != nil || len(ch) != 1 {
			why = "children " + join(ch)
			return false
		}
		p := framework.JoinPath(parent, ch[0])
		if n.Path() != p {
			why = "Path() " + n.Path() + " for " + p
			return false
		}
		stat, err := admin.Exists(context.Background(), p)
		if err != nil || stat == nil {
			return false
		}
		return !ephemeral || stat.EphemeralOwner == c.SessionID()
	})
	return n.Path()
}

func join(s []string) string {
	out := ""
	for _, x := range s {
		out += x + " "
	}
	return out
}
