package nodes_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A Close while the node's first create is still on its way to the server
// leaves no node behind, in every mode whose node can be found again (all
// but an unprotected sequential one, see the package doc): the create lands
// after the keeper stopped waiting for it, and Close finds it by its name or
// its protected id.
func TestPersistentNodeClosedDuringItsCreateLeavesNoNode(t *testing.T) {
	admin, proxy, c := proxied(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		mode      framework.CreateMode
		protected bool
	}{
		{framework.Ephemeral, false},
		{framework.Persistent, false},
		{framework.Ephemeral, true},
		{framework.Persistent, true},
		{framework.EphemeralSequential, true},
		{framework.PersistentSequential, true},
	} {
		parent := fmt.Sprintf("/closing/%v-%v", tc.mode, tc.protected)
		// The parent stands, so that the node's create is one request.
		must(t, admin.CreateContainers(ctx, parent+"/x"))
		var opts []nodes.PersistentNodeOption
		if tc.protected {
			opts = append(opts, nodes.WithProtection())
		}
		n, err := nodes.NewPersistentNode(c, parent+"/n", tc.mode, []byte("d"), opts...)
		must(t, err)
		proxy.ResetCounts()
		proxy.SetLatency(time.Second)
		must(t, n.Start())
		zktest.Eventually(t, 20*time.Second, "the create is on its way", func() bool {
			return proxy.RequestCount(zktest.OpCreate)+proxy.RequestCount(zktest.OpCreate2) > 0
		})
		must(t, n.Close(ctx))
		proxy.SetLatency(0)
		// The client's requests are answered in order: once this one is,
		// the create has landed (or not) and Close's delete has run.
		_, err = c.Exists(ctx, parent)
		must(t, err)
		zktest.Eventually(t, 20*time.Second, parent+" holds no node of the closed PersistentNode", func() bool {
			ch, _, err := admin.Children(ctx, parent)
			return err == nil && len(ch) == 1 && ch[0] == "x"
		})
	}
}
