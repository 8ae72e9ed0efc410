package discovery_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// When the client gives its session up (simulated expiry) while the server
// still holds it, the old session's node stands on the server but is never
// reported as this client's registration; in the new session the node is
// deleted and created again as the new session's. The client's cache
// reports the connection states, and its listener hears no change for the
// initial load.
func TestGivenUpSessionNodeIsNotARegistration(t *testing.T) {
	// Suspended after about 2/3 of the 8 s timeout, given up 10% later: the
	// server keeps the session (and its node) for about 2 s more.
	admin, p, c := proxied(t, framework.WithSessionTimeout(8*time.Second),
		framework.WithSimulatedSessionExpirationPercent(10))
	ctx := zktest.TestContext(t)
	d := started(t, c, discovery.WithRetryEvery(50*time.Millisecond))
	zktest.Must(t, d.RegisterService(ctx, instance("api", "x", 1)))
	old := c.SessionID()

	sc, err := d.NewServiceCache("api")
	zktest.Must(t, err)
	var changes atomic.Int32
	var mu sync.Mutex
	var states []framework.ConnectionState
	lost := make(chan struct{}, 1)
	sc.Listen(discovery.CacheListener{
		CacheChanged: func() { changes.Add(1) },
		StateChanged: func(s framework.ConnectionState) {
			mu.Lock()
			states = append(states, s)
			mu.Unlock()
			if s == framework.Lost {
				select {
				case lost <- struct{}{}:
				default:
				}
			}
		},
	})
	zktest.Must(t, sc.Start(ctx))
	defer sc.Close()
	if n := changes.Load(); n != 0 {
		t.Fatalf("the listener heard %d changes for the initial load", n)
	}
	if got := sc.Instances(); len(got) != 1 || got[0].ID != "x" {
		t.Fatalf("cached %+v", got)
	}

	p.Pause()
	select {
	case <-lost:
	case <-ctx.Done():
		t.Fatal("the cache reported no LOST")
	}
	if d.IsRegistered("x") {
		t.Fatal("the node of a given-up session reported as this client's registration")
	}
	stat, err := admin.Exists(ctx, "/services/api/x")
	zktest.Must(t, err)
	if stat == nil || stat.EphemeralOwner != old {
		t.Fatalf("the given-up session's node is not on the server (%+v): the test proves nothing", stat)
	}
	p.Resume()
	zktest.Eventually(t, 20*time.Second, "registered in the new session", func() bool { return d.IsRegistered("x") })
	now, err := admin.Exists(ctx, "/services/api/x")
	zktest.Must(t, err)
	if now == nil || now.EphemeralOwner == old || now.EphemeralOwner != c.SessionID() || now.Czxid == stat.Czxid {
		t.Fatalf("after the new session: node %+v, old owner %x, session %x", now, old, c.SessionID())
	}
	zktest.Eventually(t, 10*time.Second, "the cache reports the reconnect", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(states, framework.Reconnected)
	})
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(states, framework.Suspended) || slices.Index(states, framework.Suspended) > slices.Index(states, framework.Lost) {
		t.Fatalf("states %v, want SUSPENDED before LOST", states)
	}
}
