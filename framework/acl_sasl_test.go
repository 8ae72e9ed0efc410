package framework_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestSASLACLProviderGivesTheSASLScheme(t *testing.T) {
	p := framework.SASLACLProvider("alice", "zkcli/host.example@EXAMPLE.COM")
	want := []zk.ACL{
		{Perms: zk.PermAll, Scheme: "sasl", ID: "alice"},
		{Perms: zk.PermAll, Scheme: "sasl", ID: "zkcli/host.example@EXAMPLE.COM"},
	}
	if got := p.DefaultACL(); !slices.Equal(got, want) {
		t.Errorf("DefaultACL = %v; want %v", got, want)
	}
	if got := p.ACLForPath("/any"); got != nil {
		t.Errorf("ACLForPath = %v; want nil (the default)", got)
	}
}

// NewClient refuses a SASLACLProvider that names no user, an empty one, or
// one ZooKeeper's SASL provider refuses, naming the value; it dials nothing
// (the connect string's port has no server).
func TestSASLACLProviderRefusesBadUsers(t *testing.T) {
	for _, c := range []struct {
		name  string
		users []string
		want  string
	}{
		{"NoUser", nil, "at least one identity"},
		{"EmptyUser", []string{"alice", ""}, "sasl entry with an empty user"},
		{"TwoRealms", []string{"a@b@c"}, `sasl user "a@b@c"`},
		{"TwoHosts", []string{"a/b/c@R"}, `sasl user "a/b/c@R"`},
	} {
		_, err := framework.NewClient(deadAddr(t), testPolicy, framework.WithACLProvider(framework.SASLACLProvider(c.users...)))
		if !errors.Is(err, framework.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: NewClient = %v; want ErrInvalidArgument naming %q", c.name, err, c.want)
		}
	}
}

// TestSASLACLProviderCreatorOnly: a client authenticated as alice with
// SASLACLProvider("alice") creates a node, its parents and a mutex's nodes
// that only sasl:alice may use; alice on a second session uses them; bob
// (authenticated by SASL) and an unauthenticated client are refused with
// zk.ErrNoAuth on reads, writes, deletes and the lock; the server refuses the
// id SASLACLProvider refuses before any request.
func TestSASLACLProviderCreatorOnly(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers))
	ctx := testCtx(t)
	aliceOnly := framework.SASLACLProvider("alice")
	alice := newClient(t, srv.Addr(), framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)),
		framework.WithACLProvider(aliceOnly))
	root := testRoot(t)
	data := root + "/config/data"
	if _, err := alice.Create(ctx, data, []byte("hers"), framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatalf("Create as alice: %v", err)
	}
	m, err := locks.NewInterProcessMutex(alice, root+"/lock")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Acquire(ctx); err != nil {
		t.Fatalf("alice's Acquire: %v", err)
	}
	nodes, err := m.ParticipantNodes(ctx)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("ParticipantNodes = %v, %v; want alice's node", nodes, err)
	}
	want := aliceOnly.DefaultACL()
	for _, p := range []string{root, root + "/config", data, root + "/lock", nodes[0]} {
		if acl, _, err := alice.GetACL(ctx, p); err != nil || !slices.Equal(acl, want) {
			t.Errorf("ACL of %s = %v, %v; want %v", p, acl, err, want)
		}
	}

	again := newClient(t, srv.Addr(), framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)))
	if got, _, err := again.GetData(ctx, data); err != nil || string(got) != "hers" {
		t.Errorf("GetData as alice on another session = %q, %v", got, err)
	}

	bob := newClient(t, srv.Addr(), framework.WithSASL(framework.SASLDigest("bob", saslBobPassword)))
	anon := newClient(t, srv.Addr())
	for name, c := range map[string]*framework.Client{"bob": bob, "unauthenticated": anon} {
		refused(t, name+" GetData", func() error { _, _, err := c.GetData(ctx, data); return err })
		refused(t, name+" SetData", func() error { _, err := c.SetData(ctx, data, []byte("x"), -1); return err })
		refused(t, name+" Delete", func() error { return c.Delete(ctx, data) })
		refused(t, name+" Children", func() error { _, _, err := c.Children(ctx, root+"/lock"); return err })
		refused(t, name+" Create", func() error { _, err := c.Create(ctx, root+"/config/other", nil); return err })
		other, err := locks.NewInterProcessMutex(c, root+"/lock")
		if err != nil {
			t.Fatal(err)
		}
		// The refusal is an answer, not a wait: the bound is only a backstop.
		short, cancel := context.WithTimeout(ctx, testConnectionTimeout)
		ok, err := other.TryAcquire(short, time.Second)
		cancel()
		if ok || !errors.Is(err, zk.ErrNoAuth) {
			t.Errorf("%s TryAcquire on alice's lock = %v, %v; want zk.ErrNoAuth", name, ok, err)
		}
	}
	if err := m.Release(ctx); err != nil {
		t.Fatalf("alice's Release: %v", err)
	}
	if kids, _, err := alice.Children(ctx, root+"/lock"); err != nil || len(kids) != 0 {
		t.Errorf("lock children after the release = %v, %v; want none (no node of bob's or the refused client's)", kids, err)
	}

	// What SASLACLProvider refuses, the server refuses too.
	bad := zk.ACL{Perms: zk.PermAll, Scheme: "sasl", ID: "a@b@c"}
	if _, err := alice.Create(ctx, root+"/bad", nil, framework.WithACL(bad)); !errors.Is(err, zk.ErrInvalidACL) {
		t.Errorf("Create with sasl id a@b@c = %v; want zk.ErrInvalidACL", err)
	}
}

// refused fails t unless op's error matches zk.ErrNoAuth.
func refused(t *testing.T, what string, op func() error) {
	t.Helper()
	if err := op(); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("%s = %v; want zk.ErrNoAuth", what, err)
	}
}

// TestSASLRequiredServerRefusesAnUnauthenticatedClient: on a server that
// requires SASL, a client without SASL is never served: the server closes
// its session at its first request, and an operation fails with
// ErrNotConnected once its ctx ends, as docs/security.md's table of errors
// states; a SASL client with the sasl ACL is served meanwhile.
func TestSASLRequiredServerRefusesAnUnauthenticatedClient(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(saslUsers), zktest.WithSASLRequired())
	ctx := testCtx(t)
	alice := newClient(t, srv.Addr(), framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)),
		framework.WithACLProvider(framework.SASLACLProvider("alice")))
	if _, err := alice.Create(ctx, "/required/node", nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	anon := newUnstartedClient(t, srv.Addr())
	if err := anon.Start(); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, testConnectionTimeout)
	defer cancel()
	_, err := anon.Exists(short, "/required/node")
	if !errors.Is(err, framework.ErrNotConnected) {
		t.Errorf("Exists without SASL = %v; want ErrNotConnected", err)
	}
	if _, _, err := alice.GetData(ctx, "/required/node"); err != nil {
		t.Errorf("GetData as alice meanwhile: %v", err)
	}
}
