package discovery_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// summary is "id:port" of each instance, sorted.
func summary(insts []discovery.ServiceInstance[meta]) []string {
	out := make([]string, 0, len(insts))
	for _, i := range insts {
		p := -1
		if i.Port != nil {
			p = *i.Port
		}
		out = append(out, fmt.Sprintf("%s:%d", i.ID, p))
	}
	slices.Sort(out)
	return out
}

// A ServiceCache catches up with every change after each fault settles: a
// lost reply to its listing or to a read, and its session's expiry while
// instances come and go and change.
func TestServiceCacheCatchesUpAfterEachFault(t *testing.T) {
	admin, proxy, cc := proxied(t, framework.WithSessionTimeout(4*time.Second))
	ctx := zktest.TestContext(t)
	d := started(t, admin)
	sc, err := started(t, cc).NewServiceCache("api")
	zktest.Must(t, err)
	zktest.Must(t, d.RegisterService(ctx, instance("api", "a", 1)))
	zktest.Must(t, d.RegisterService(ctx, instance("api", "b", 2)))
	zktest.Must(t, sc.Start(ctx))
	defer sc.Close()
	settled := func(what string) {
		t.Helper()
		zktest.Eventually(t, 30*time.Second, "the cache equals the server after "+what, func() bool {
			onServer, err := d.QueryForInstances(ctx, "api")
			return err == nil && slices.Equal(summary(sc.Instances()), summary(onServer))
		})
	}
	settled("the load")

	lost := proxy.LostReplies()
	proxy.LoseNextReply(zktest.OpGetChildren, zktest.OpGetChildren2)
	zktest.Must(t, d.RegisterService(ctx, instance("api", "c", 3)))
	zktest.Eventually(t, 30*time.Second, "the listing's reply lost", func() bool { return proxy.LostReplies() > lost })
	settled("a lost listing reply")

	lost = proxy.LostReplies()
	proxy.LoseNextReply(zktest.OpGetData)
	zktest.Must(t, d.UpdateService(ctx, instance("api", "a", 10)))
	zktest.Eventually(t, 30*time.Second, "the read's reply lost", func() bool { return proxy.LostReplies() > lost })
	settled("a lost read reply")

	expireSession(t, proxy, cc, func() {
		zktest.Must(t, d.UnregisterService(ctx, instance("api", "b", 2)))
		zktest.Must(t, d.RegisterService(ctx, instance("api", "e", 5)))
		zktest.Must(t, d.UpdateService(ctx, instance("api", "c", 30)))
	})
	settled("its session's expiry")
	if got := summary(sc.Instances()); !slices.Equal(got, []string{"a:10", "c:30", "e:5"}) {
		t.Fatalf("cache holds %v", got)
	}
}
