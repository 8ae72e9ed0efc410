package discovery_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// No registration outlives Close, not even when Close's context ends while
// a RegisterService holds the turn (its create on a slow network): Close
// still deletes the registrations it knows and returns by its context, and
// the register that finishes after it deletes its own node.
func TestNoRegistrationOutlivesACloseCutShortByARegistrationUnderWay(t *testing.T) {
	admin, proxy, c := proxied(t, framework.WithSessionTimeout(30*time.Second))
	ctx := zktest.TestContext(t)
	d, err := discovery.NewServiceDiscovery[meta](c, "/services")
	zktest.Must(t, err)
	zktest.Must(t, d.Start())
	zktest.Must(t, d.RegisterService(ctx, instance("api", "a", 1)))
	stat, err := admin.Exists(ctx, "/services/api/a")
	zktest.Must(t, err)
	if stat == nil || stat.EphemeralOwner != c.SessionID() {
		t.Fatalf("a's node %+v, session %x", stat, c.SessionID())
	}

	// The proxy reads (and counts) at once what it delivers 3 s later: once
	// b's create is counted, b holds the turn for seconds.
	proxy.ResetCounts()
	proxy.SetLatency(3 * time.Second)
	registered := make(chan error, 1)
	go func() { registered <- d.RegisterService(ctx, instance("api", "b", 2)) }()
	zktest.Eventually(t, 30*time.Second, "b's create on its way", func() bool {
		return proxy.RequestCount(zktest.OpCreate)+proxy.RequestCount(zktest.OpCreate2) > 0
	})
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	_ = d.Close(short) // may report the deletes it left to the background
	select {
	case err := <-registered:
		t.Logf("RegisterService(b) during Close: %v", err)
	case <-ctx.Done():
		t.Fatal("RegisterService(b) never returned")
	}
	proxy.SetLatency(0)
	if c.SessionID() != stat.EphemeralOwner {
		t.Fatal("the session changed: the check below proves nothing")
	}
	zktest.Eventually(t, 30*time.Second, "no instance node after Close", func() bool {
		ch, _, err := admin.Children(ctx, "/services/api")
		return errors.Is(err, zk.ErrNoNode) || (err == nil && len(ch) == 0) // the emptied container may go
	})
}
