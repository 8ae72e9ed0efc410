package nodes_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// proxied starts a server and returns a client on it, a proxy to it and a
// client through the proxy whose 20 s session outlasts the faults a test
// makes on the link.
func proxied(t *testing.T) (admin *framework.Client, proxy *zktest.Proxy, c *framework.Client) {
	t.Helper()
	srv := zktest.StartServer(t)
	proxy = zktest.StartProxy(t, srv.ConnectString())
	return zkclient.New(t, srv.ConnectString()), proxy, zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
}

// startNode starts n, waits for its first create and closes it when the
// test ends.
func startNode(t *testing.T, n *nodes.PersistentNode) {
	t.Helper()
	zktest.Must(t, n.Start())
	t.Cleanup(func() { _ = n.Close(context.Background()) })
	zktest.Must(t, n.WaitForInitialCreate(zktest.TestContext(t)))
}

// keptNode makes a PersistentNode with NewPersistentNode's arguments and
// starts it as startNode does.
func keptNode(t *testing.T, c *framework.Client, path string, mode framework.CreateMode, data []byte, opts ...nodes.PersistentNodeOption) *nodes.PersistentNode {
	t.Helper()
	n, err := nodes.NewPersistentNode(c, path, mode, data, opts...)
	zktest.Must(t, err)
	startNode(t, n)
	return n
}

// closeLeavesNoNode runs a keeper's Close (stop) and fails the test unless
// path is gone, as admin sees it, once it has returned.
func closeLeavesNoNode(t *testing.T, admin *framework.Client, stop func(context.Context) error, path string) {
	t.Helper()
	ctx := zktest.TestContext(t)
	zktest.Must(t, stop(ctx))
	if stat, err := admin.Exists(ctx, path); err != nil || stat != nil {
		t.Fatalf("after Close %s stands: %+v (%v)", path, stat, err)
	}
}

// awaitGone waits until path is gone, as admin sees it.
func awaitGone(t *testing.T, admin *framework.Client, path string) {
	t.Helper()
	zktest.Eventually(t, 30*time.Second, path+" is gone", func() bool {
		stat, err := admin.Exists(context.Background(), path)
		return err == nil && stat == nil
	})
}

// awaitLost registers for c's report of a lost session and returns the wait
// for it, which fails the test after 30 s.
func awaitLost(t *testing.T, c *framework.Client) func() {
	lost, stop := zkclient.LostSignal(c)
	return func() {
		t.Helper()
		defer stop()
		select {
		case <-lost:
		case <-time.After(30 * time.Second):
			t.Fatal("the client never reported its session lost")
		}
	}
}

// children lists parent's children as the server has them, sorted.
func children(t *testing.T, c *framework.Client, parent string) []string {
	t.Helper()
	ch, _, err := c.Children(zktest.TestContext(t), parent)
	zktest.Must(t, err)
	sort.Strings(ch)
	return ch
}

// await polls cond every 10 ms until it holds, failing the test after
// timeout with what and cond's last description of what it saw.
func await(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting until %s; last saw %s", timeout, what, saw)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitStanding waits until parent has exactly one child, it is n's node,
// and (for an ephemeral node) the session that owns it is c's current one.
func awaitStanding(t *testing.T, admin, c *framework.Client, n *nodes.PersistentNode, parent string, ephemeral bool) string {
	t.Helper()
	await(t, 30*time.Second, "the node stands once in "+parent, func() (bool, string) {
		ch, _, err := admin.Children(context.Background(), parent)
		if err != nil || len(ch) != 1 {
			return false, fmt.Sprintf("children %v (%v)", ch, err)
		}
		p := framework.JoinPath(parent, ch[0])
		if n.Path() != p {
			return false, fmt.Sprintf("Path() %q for %s", n.Path(), p)
		}
		stat, err := admin.Exists(context.Background(), p)
		if err != nil || stat == nil {
			return false, fmt.Sprintf("%s gone (%v)", p, err)
		}
		if ephemeral && stat.EphemeralOwner != c.SessionID() {
			return false, fmt.Sprintf("%s owned by 0x%x, client session 0x%x", p, stat.EphemeralOwner, c.SessionID())
		}
		return true, ""
	})
	return n.Path()
}
