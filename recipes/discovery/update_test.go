package discovery_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// expireSession pauses p until c reports its session lost (the server
// expires it meanwhile), running meanwhile (if not nil) in the pause, then
// lets c connect again with a new session.
func expireSession(t *testing.T, p *zktest.Proxy, c *framework.Client, meanwhile func()) {
	t.Helper()
	lost, stop := zkclient.LostSignal(c)
	defer stop()
	before := c.SessionID()
	p.Pause()
	if meanwhile != nil {
		meanwhile()
	}
	select {
	case <-lost:
	case <-time.After(30 * time.Second):
		t.Fatal("the client never reported its session lost")
	}
	p.Resume()
	zktest.Eventually(t, 30*time.Second, "a new session", func() bool {
		s := c.SessionID()
		return s != 0 && s != before
	})
}

// port reads the port of the instance node at path as the server has it.
func port(t *testing.T, admin *framework.Client, name, id string) (int, bool) {
	t.Helper()
	ad, err := discovery.NewServiceDiscovery[meta](admin, "/services")
	zktest.Must(t, err)
	inst, ok, err := ad.QueryForInstance(zktest.TestContext(t), name, id)
	zktest.Must(t, err)
	if !ok || inst.Port == nil {
		return 0, false
	}
	return *inst.Port, true
}

// An update is kept for the registrations made again later even when the
// client never learned that it landed: after a lost reply to the update and
// a session expiry, the instance is registered again with the update, never
// with what it replaced (as Curator keeps the updated instance first).
func TestUpdateSurvivesALostReplyAndASessionExpiry(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.NewWithPolicy(t, proxy.Addr(), retry.NTimes{N: 0}, framework.WithSessionTimeout(4*time.Second))
	ctx := zktest.TestContext(t)
	d := started(t, c, discovery.WithRetryEvery(50*time.Millisecond))
	zktest.Must(t, d.RegisterService(ctx, instance("api", "x", 1)))

	proxy.LoseNextReply(zktest.OpSetData)
	if err := d.UpdateService(ctx, instance("api", "x", 2)); err == nil {
		t.Log("the update's retry succeeded; the lost reply is still the point")
	}
	if proxy.LostReplies() != 1 {
		t.Fatalf("%d replies lost, want the update's", proxy.LostReplies())
	}
	if p, ok := port(t, admin, "api", "x"); !ok || p != 2 {
		t.Fatalf("the server holds port %d (%v) after the update landed", p, ok)
	}

	expireSession(t, proxy, c, nil)
	zktest.Eventually(t, 30*time.Second, "registered again in the new session", func() bool { return d.IsRegistered("x") })
	if p, ok := port(t, admin, "api", "x"); !ok || p != 2 {
		t.Fatalf("registered again with port %d (%v), want the update's 2", p, ok)
	}
}

// A registration whose create failed without a connection loss (its
// context ended in a short partition) is kept and made by the keeper, not
// left for a reconnect that may never come.
func TestFailedRegistrationIsMadeWithoutAReconnect(t *testing.T) {
	admin, proxy, c := proxied(t, framework.WithSessionTimeout(30*time.Second))
	ctx := zktest.TestContext(t)
	var reconnects atomic.Int32
	stop := c.Listen(func(s framework.ConnectionState) {
		if s == framework.Reconnected {
			reconnects.Add(1)
		}
	})
	defer stop()
	d := started(t, c, discovery.WithRetryEvery(50*time.Millisecond))
	zktest.Must(t, d.RegisterService(ctx, instance("api", "warm", 1))) // the parents stand

	// A round counts when the create went out: RegisterService may also
	// fail waiting for the turn that the keeper's own check holds in the
	// pause, and is then rightly not kept.
	creates := func() int64 {
		return proxy.RequestCount(zktest.OpCreate) + proxy.RequestCount(zktest.OpCreate2) + proxy.RequestCount(zktest.OpCreateContainer)
	}
	id := ""
	for round := 0; round < 10 && id == ""; round++ {
		before := creates()
		proxy.Pause()
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := d.RegisterService(short, instance("api", fmt.Sprint("x", round), 2))
		cancel()
		proxy.Resume()
		if err == nil {
			t.Fatal("RegisterService succeeded in a partition")
		}
		// Answered in order: once this is, the proxy has read the create
		// if it went out.
		_, err = c.Exists(ctx, "/services")
		zktest.Must(t, err)
		if creates() > before {
			id = fmt.Sprint("x", round)
		}
	}
	if id == "" {
		t.Fatal("in 10 rounds no RegisterService reached its create")
	}
	zktest.Eventually(t, 30*time.Second, id+" registered", func() bool { return d.IsRegistered(id) })
	if p, ok := port(t, admin, "api", id); !ok || p != 2 {
		t.Fatalf("%s's node holds port %d (%v)", id, p, ok)
	}
	if n := reconnects.Load(); n != 0 {
		t.Fatalf("%d reconnects: the check above proves nothing", n)
	}
}
