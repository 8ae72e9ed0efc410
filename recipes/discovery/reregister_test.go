package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Registering an id again, in any service type after any other, replaces
// the registration: exactly one node stands for the id, of the new type's
// node kind, holding the new instance; and Close deletes it, whatever the
// type (Curator 5.4's ServiceDiscovery deletes PERMANENT instances on close
// too).
func TestRegisteringAnIDAgainInAnotherTypeLeavesOneNode(t *testing.T) {
	_, c, admin := serve(t)
	ctx := zktest.TestContext(t)
	types := []discovery.ServiceType{discovery.Static, discovery.Dynamic, discovery.DynamicSequential, discovery.Permanent}
	for _, from := range types {
		for _, to := range types {
			t.Run(fmt.Sprintf("%s to %s", from, to), func(t *testing.T) {
				name := strings.ToLower(fmt.Sprintf("%s-%s", from, to))
				dir := "/services/" + name
				d, err := discovery.NewServiceDiscovery[meta](c, "/services")
				zktest.Must(t, err)
				zktest.Must(t, d.Start())
				t.Cleanup(func() { d.Close(context.Background()) })
				first, second := instance(name, "x", 1), instance(name, "x", 2)
				first.ServiceType, second.ServiceType = from, to
				zktest.Must(t, d.RegisterService(ctx, first))
				zktest.Must(t, d.RegisterService(ctx, second))

				kids, _, err := admin.Children(ctx, dir)
				zktest.Must(t, err)
				if len(kids) != 1 {
					t.Fatalf("nodes for id x after registering it again: %v", kids)
				}
				node := kids[0]
				sequential := to == discovery.DynamicSequential
				if sequential != (node != "x") || (sequential && (len(node) != 11 || !strings.HasPrefix(node, "x"))) {
					t.Errorf("node %q for a %s instance", node, to)
				}
				stat, err := admin.Exists(ctx, dir+"/"+node)
				zktest.Must(t, err)
				ephemeral := to == discovery.Dynamic || to == discovery.DynamicSequential
				if stat == nil || (stat.EphemeralOwner == c.SessionID()) != ephemeral || (!ephemeral && stat.EphemeralOwner != 0) {
					t.Errorf("node %s of a %s instance: %+v (session %x)", node, to, stat, c.SessionID())
				}
				got, err := d.QueryForInstances(ctx, name)
				zktest.Must(t, err)
				if len(got) != 1 || got[0].ServiceType != to || *got[0].Port != 2 {
					t.Errorf("instances %+v", got)
				}
				if !d.IsRegistered("x") {
					t.Error("x not reported registered")
				}

				zktest.Must(t, d.Close(ctx))
				kids, _, err = admin.Children(ctx, dir)
				if err != nil && !errors.Is(err, zk.ErrNoNode) {
					t.Fatal(err)
				}
				if len(kids) != 0 {
					t.Errorf("Close left %v", kids)
				}
			})
		}
	}
}
