package discovery_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A Dynamic registration survives a session expiry: the node of the expired
// session is never reported as registered, the registration is made again
// once in the new session, and a later reconnect within that session leaves
// the node alone (Curator would delete and create it again).
func TestRegistrationSurvivesSessionExpiryOnce(t *testing.T) {
	admin, p, c := proxied(t, framework.WithSessionTimeout(4*time.Second))
	ctx := zktest.TestContext(t)
	lost, reconnected := make(chan struct{}, 8), make(chan struct{}, 8)
	stop := c.Listen(func(s framework.ConnectionState) {
		switch s {
		case framework.Lost:
			lost <- struct{}{}
		case framework.Reconnected:
			reconnected <- struct{}{}
		}
	})
	defer stop()
	d := started(t, c, discovery.WithRetryEvery(50*time.Millisecond))
	zktest.Must(t, d.RegisterService(ctx, instance("api", "x", 1)))
	first, err := admin.Exists(ctx, "/services/api/x")
	zktest.Must(t, err)

	// Count the creations of the node as an observer sees them.
	ad, err := discovery.NewServiceDiscovery[meta](admin, "/services")
	zktest.Must(t, err)
	sc, err := ad.NewServiceCache("api")
	zktest.Must(t, err)
	zktest.Must(t, sc.Start(ctx))
	defer sc.Close()
	var changes atomic.Int32
	sc.Listen(discovery.CacheListener{CacheChanged: func() { changes.Add(1) }})

	p.Pause()
	select {
	case <-lost:
	case <-ctx.Done():
		t.Fatal("no LOST")
	}
	if d.IsRegistered("x") {
		t.Fatal("a node of the lost session reported as this client's registration")
	}
	p.Resume()
	select {
	case <-reconnected:
	case <-ctx.Done():
		t.Fatal("no reconnect after the expiry")
	}
	zktest.Eventually(t, 20*time.Second, "registered again in the new session", func() bool { return d.IsRegistered("x") })
	now, err := admin.Exists(ctx, "/services/api/x")
	zktest.Must(t, err)
	if now == nil || now.Czxid == first.Czxid || now.EphemeralOwner != c.SessionID() {
		t.Fatalf("node after the expiry %+v, first %+v, session %x", now, first, c.SessionID())
	}
	zktest.Eventually(t, 10*time.Second, "the observer saw removal and re-creation", func() bool { return changes.Load() >= 2 })

	// A reconnect within the session changes nothing.
	session := c.SessionID()
	p.Sever()
	select {
	case <-reconnected:
	case <-ctx.Done():
		t.Fatal("no reconnect after the sever")
	}
	if c.SessionID() != session {
		t.Fatal("the sever cost the session; the check below needs it")
	}
	zktest.Must(t, d.RegisterService(ctx, instance("api", "y", 2))) // waits for any re-registration under way
	again, err := admin.Exists(ctx, "/services/api/x")
	zktest.Must(t, err)
	if again == nil || again.Czxid != now.Czxid {
		t.Fatalf("a reconnect in the same session re-created the node: %+v then %+v", now, again)
	}
	if n := changes.Load(); n > 3 {
		t.Fatalf("%d changes seen, want 2 for the expiry and 1 for y", n)
	}
}

// The provider never returns an instance the cache knows is gone: when the
// cache reports a removal, no later pick returns it.
func TestProviderNeverReturnsARemovedInstance(t *testing.T) {
	_, c, admin := serve(t)
	ctx := zktest.TestContext(t)
	d := started(t, c)
	for i, id := range []string{"a", "b", "c"} {
		zktest.Must(t, d.RegisterService(ctx, instance("api", id, i+1)))
	}
	p, err := d.NewServiceProvider("api")
	zktest.Must(t, err)
	zktest.Must(t, p.Start(ctx))
	defer p.Close()
	if n := len(p.AllInstances()); n != 3 {
		t.Fatalf("%d instances after Start, want 3", n)
	}
	seen := map[string]bool{}
	for range 3 {
		i, ok := p.Instance()
		if !ok {
			t.Fatal("no instance")
		}
		seen[i.ID] = true
	}
	if len(seen) != 3 {
		t.Fatalf("round robin over 3 picked %v", seen)
	}

	// Watch the removal through a cache of the same client: after it is
	// reported, the provider's cache has applied it too or picks only live
	// instances.
	zktest.Must(t, admin.Delete(ctx, "/services/api/b"))
	zktest.Eventually(t, 10*time.Second, "the provider drops b", func() bool {
		for _, i := range p.AllInstances() {
			if i.ID == "b" {
				return false
			}
		}
		return true
	})
	for range 50 {
		if i, ok := p.Instance(); !ok || i.ID == "b" {
			t.Fatalf("picked %q (%v) after b was gone", i.ID, ok)
		}
	}

	// NoteError: Curator's threshold of 2 takes an instance out.
	a, _ := p.Instance()
	for a.ID != "a" {
		a, _ = p.Instance()
	}
	p.NoteError(a)
	if len(p.AllInstances()) != 2 {
		t.Fatal("one error took the instance out")
	}
	p.NoteError(a)
	for range 10 {
		if i, _ := p.Instance(); i.ID == "a" {
			t.Fatal("a down instance was picked")
		}
	}

	// Disabled instances and user filters are left out.
	off := false
	cInst := instance("api", "c", 3)
	cInst.Enabled = &off
	zktest.Must(t, d.UpdateService(ctx, cInst))
	zktest.Eventually(t, 10*time.Second, "disabled c left out", func() bool { return len(p.AllInstances()) == 0 })
	if _, ok := p.Instance(); ok {
		t.Fatal("an instance from an empty provider")
	}
}

// Nothing outlives Close: no goroutine (goleak in TestMain) and no watch:
// once the watched nodes change, the server holds no watch of the client.
func TestCloseLeavesNoWatch(t *testing.T) {
	srv, c, admin := serve(t)
	ctx := zktest.TestContext(t)
	d := started(t, c)
	zktest.Must(t, d.RegisterService(ctx, instance("api", "a", 1)))
	p, err := d.NewServiceProvider("api", discovery.WithStrategy(discovery.Sticky(discovery.Random[meta]())))
	zktest.Must(t, err)
	zktest.Must(t, p.Start(ctx))
	sc, err := d.NewServiceCache("api")
	zktest.Must(t, err)
	zktest.Must(t, sc.Start(ctx))
	if len(watchedPaths(t, srv.ConnectString(), "/services")) == 0 {
		t.Fatal("no watch while the caches run: the check below proves nothing")
	}
	zktest.Must(t, p.Close())
	zktest.Must(t, sc.Close())
	zktest.Must(t, sc.Close())
	zktest.Must(t, d.Close(ctx))
	// The one-shot watches fire on these changes; none is set again.
	_, err = admin.Create(ctx, "/services/api/z", nil)
	zktest.Must(t, err)
	zktest.Must(t, admin.Delete(ctx, "/services/api/z"))
	_, err = admin.SetData(ctx, "/services/api", []byte("x"), -1)
	zktest.Must(t, err)
	zktest.Eventually(t, 10*time.Second, "no watch left", func() bool { return len(watchedPaths(t, srv.ConnectString(), "/services")) == 0 })
}
