package discovery_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// nodesOf lists the nodes of instance id under the service dir.
func nodesOf(t *testing.T, admin *framework.Client, dir, id string) []string {
	t.Helper()
	ch, _, err := admin.Children(zktest.TestContext(t), dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil // the emptied container went
	}
	zktest.Must(t, err)
	var out []string
	for _, name := range ch {
		if strings.HasPrefix(name, id) {
			out = append(out, name)
		}
	}
	return out
}

// A DYNAMIC_SEQUENTIAL registration whose create reply is lost ends with
// one node for the instance, whether the client's retry made the second
// create or the keeper did after the reconnect; and Close leaves none.
func TestSequentialRegistrationLostCreateReplyMakesOneNode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	for n, policy := range []retry.Policy{zkclient.TestRetryPolicy, retry.NTimes{N: 0}} {
		proxy := zktest.StartProxy(t, srv.ConnectString())
		c := zkclient.NewWithPolicy(t, proxy.Addr(), policy)
		d, err := discovery.NewServiceDiscovery[meta](c, "/services", discovery.WithRetryEvery(50*time.Millisecond))
		zktest.Must(t, err)
		zktest.Must(t, d.Start())
		name := fmt.Sprintf("seq%d", n)
		dir := "/services/" + name
		// The service's node stands, so that the lost reply is the instance's.
		zktest.Must(t, admin.CreateContainers(ctx, dir+"/placeholder"))
		inst := instance(name, "s", 1)
		inst.ServiceType = discovery.DynamicSequential
		proxy.LoseNextReply(zktest.OpCreate, zktest.OpCreate2)
		_ = d.RegisterService(ctx, inst) // fails without retries: kept all the same
		if proxy.LostReplies() != 1 {
			t.Fatalf("%s: %d replies lost, want the create's", name, proxy.LostReplies())
		}
		// Registered means the create that counts is done; the instance
		// then has one node once any stray one is gone.
		zktest.Eventually(t, 30*time.Second, name+": registered with one node", func() bool {
			return d.IsRegistered("s") && len(nodesOf(t, admin, dir, "s")) == 1
		})
		zktest.Must(t, admin.Delete(ctx, dir+"/placeholder"))
		zktest.Must(t, d.Close(ctx))
		if got := nodesOf(t, admin, dir, "s"); len(got) != 0 {
			t.Fatalf("%s: instance nodes %v after Close", name, got)
		}
	}
}
