package owned_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// createEphemeral returns a create function that makes an ephemeral node at
// nodePath through c and then runs after, before it reports the node.
func createEphemeral(c *framework.Client, nodePath string, after func()) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		p, err := c.Create(ctx, nodePath, nil, framework.WithMode(framework.Ephemeral))
		if err == nil {
			after()
		}
		return p, err
	}
}

// newGivingUpClient returns a client through p that gives its session up
// (simulated expiry) long before the server expires it, so that the nodes of
// the given-up session still stand when it connects again.
func newGivingUpClient(t *testing.T, p *zktest.Proxy) *framework.Client {
	return zkclient.New(t, p.Addr(),
		framework.WithSessionTimeout(8*time.Second), framework.WithSimulatedSessionExpirationPercent(15))
}

// giveUpSession pauses p until c gives its session up (simulated expiry),
// severs the links so that the old session's close never reaches the
// server, and lets c connect again with a new session.
func giveUpSession(t *testing.T, p *zktest.Proxy, c *framework.Client) {
	t.Helper()
	lost, stop := zkclient.LostSignal(c)
	defer stop()
	p.Pause()
	select {
	case <-lost:
	case <-time.After(15 * time.Second):
		t.Fatal("the client did not give its session up within 15s")
	}
	p.Sever()
	p.Resume()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
}

// A create that ran in the client's current session reports that session as
// the node's owner without asking the server, and the node counts.
func TestCreateInTheCurrentSessionCostsNoRequest(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	ctx := zktest.TestContext(t)
	proxy.ResetCounts()
	p, owner, err := owned.Create(ctx, c, createEphemeral(c, "/owned-current", func() {}))
	if err != nil || p != "/owned-current" {
		t.Fatalf("Create = %q, %d, %v; want /owned-current", p, owner.ID(), err)
	}
	if owner.ID() != c.SessionID() || !owner.IsCurrent() {
		t.Errorf("owner 0x%x, client session 0x%x: want the node to count", owner.ID(), c.SessionID())
	}
	if n := proxy.RequestCount(zktest.OpExists); n != 0 {
		t.Errorf("Create sent %d exists requests; want none", n)
	}
}

// A create whose client changed sessions meanwhile reads the node's owner:
// the session the client gave up, under which the node never counts.
func TestCreateAcrossASessionChangeReportsTheOldOwner(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := newGivingUpClient(t, proxy)
	ctx := zktest.TestContext(t)
	old := c.SessionID()
	p, owner, err := owned.Create(ctx, c, createEphemeral(c, "/owned-old", func() { giveUpSession(t, proxy, c) }))
	if err != nil || p != "/owned-old" {
		t.Fatalf("Create = %q, %d, %v; want /owned-old", p, owner.ID(), err)
	}
	if c.SessionID() == old {
		t.Fatal("the client kept its session: the test did not give it up")
	}
	if owner.ID() != old || owner.IsCurrent() {
		t.Errorf("owner 0x%x (old session 0x%x, current 0x%x): want the old session, which does not count", owner.ID(), old, c.SessionID())
	}
	select {
	case <-owner.Done():
	default:
		t.Error("the old session's Done is open")
	}
}

// A node found gone after a session change has no owner the client has: an
// owner of 0 with a nil error, which never counts.
func TestCreateOfANodeFoundGoneReportsNoOwner(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := newGivingUpClient(t, proxy)
	admin := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	p, owner, err := owned.Create(ctx, c, createEphemeral(c, "/owned-gone", func() {
		giveUpSession(t, proxy, c)
		if err := admin.Delete(ctx, "/owned-gone"); err != nil {
			t.Fatal(err)
		}
	}))
	if err != nil || p != "/owned-gone" || owner.ID() != 0 {
		t.Fatalf("Create = %q, 0x%x, %v; want /owned-gone with owner 0 and no error", p, owner.ID(), err)
	}
	if owner.IsCurrent() {
		t.Error("an owner of 0 counts as current")
	}
}

// A failed create reports its error and no node.
func TestCreateReportsTheCreateError(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	failed := errors.New("create failed")
	p, owner, err := owned.Create(zktest.TestContext(t), c, func(context.Context) (string, error) { return "", failed })
	if !errors.Is(err, failed) || p != "" || owner.ID() != 0 {
		t.Errorf("Create = %q, %d, %v; want no node and the create's error", p, owner.ID(), err)
	}
}
