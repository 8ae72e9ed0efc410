package security_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/recipes/shared"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestEveryRecipeNodeCarriesTheProviderACL: with WithACLProvider, every node
// the recipes create (the namespace root, parents made as containers, lock
// and lease nodes, the leader's, a counter, a shared count, barriers, a
// group member, a registered service) has the provider's ACL and no other.
func TestEveryRecipeNodeCarriesTheProviderACL(t *testing.T) {
	srv := zktest.StartServer(t)
	const user, password = "svc", "pw-of-svc"
	want := zk.DigestACL(zk.PermAll, user, password)
	c := zkclient.New(t, srv.ConnectString(),
		framework.WithNamespace("app"),
		framework.WithAuth("digest", []byte(user+":"+password)),
		framework.WithACLProvider(framework.DigestACLProvider(user, password)))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	m := newMutex(t, c, "/locks/mutex")
	check(m.Acquire(ctx))
	lease, err := newSemaphore(t, c, "/locks/semaphore", 2).Acquire(ctx)
	check(err)
	latch, err := leader.NewLeaderLatch(c, "/leader/latch", "me")
	check(err)
	check(latch.Start())
	defer latch.Close(context.Background())
	_, err = latch.Await(ctx)
	check(err)
	counter, err := atomic.NewDistributedAtomicLong(c, "/atomic/counter")
	check(err)
	_, err = counter.Increment(ctx)
	check(err)
	count, err := shared.NewSharedCount(c, "/shared/count", 7)
	check(err)
	check(count.Start(ctx))
	defer count.Close()
	barrier, err := barriers.NewDistributedBarrier(c, "/barriers/barrier")
	check(err)
	check(barrier.Set(ctx))
	double, err := barriers.NewDistributedDoubleBarrier(c, "/barriers/double", 1)
	check(err)
	check(double.Enter(ctx))
	member, err := nodes.NewGroupMember(c, "/nodes/group", "me", []byte("x"))
	check(err)
	check(member.Start(ctx))
	defer member.Close(context.Background())
	disc, err := discovery.NewServiceDiscovery[string](c, "/discovery")
	check(err)
	check(disc.Start())
	defer disc.Close(context.Background())
	check(disc.RegisterService(ctx, discovery.NewServiceInstance[string]("orders", "127.0.0.1", 8080)))

	// Walk the tree as the same user, over a plain go-zookeeper session.
	conn, _, err := zk.Connect([]string{srv.ConnectString()}, 10*time.Second, zk.WithLogger(quiet{}))
	check(err)
	defer conn.Close()
	check(conn.AddAuth("digest", []byte(user+":"+password)))
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		acl, _, err := conn.GetACL(p)
		check(err)
		if len(acl) != len(want) || acl[0] != want[0] {
			t.Errorf("ACL of %s = %+v; want %+v", p, acl, want)
		}
		seen[p] = true
		kids, _, err := conn.Children(p)
		check(err)
		for _, k := range kids {
			walk(p + "/" + k)
		}
	}
	walk("/app")
	for _, prefix := range []string{"/app/locks/mutex/", "/app/locks/semaphore/leases/", "/app/leader/latch/",
		"/app/atomic/counter", "/app/shared/count", "/app/barriers/barrier", "/app/barriers/double/",
		"/app/nodes/group/", "/app/discovery/orders/"} {
		found := false
		for p := range seen {
			found = found || strings.HasPrefix(p, prefix)
		}
		if !found {
			t.Errorf("no node under %s was checked (checked %d nodes)", prefix, len(seen))
		}
	}
	t.Logf("%d nodes, all with the provider's ACL", len(seen))
	check(m.Release(ctx))
	check(lease.Close(ctx))
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
