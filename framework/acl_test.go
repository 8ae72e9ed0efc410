package framework_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A node under a digest ACL is out of reach of a client without the auth, and within
// reach of one with it: after a reconnect (go-zookeeper re-sends the auth) and after a
// simulated expiry replaced the connection (the client sends it again).
func TestDigestACL(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	authed, r := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithAuth("digest", []byte("user:secret")))
	anon := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	acl := zk.DigestACL(zk.PermAll, "user", "secret")
	if _, err := authed.Create(ctx, root, []byte("r"), framework.WithACL(acl...)); err != nil {
		t.Fatal(err)
	}
	for _, child := range []string{"/a", "/b", "/c"} {
		if _, err := authed.Create(ctx, root+child, nil, framework.WithACL(acl...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := anon.Delete(ctx, root+"/a"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("Delete without auth: %v, want zk.ErrNoAuth", err)
	}
	if _, _, err := anon.GetData(ctx, root); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("GetData without auth: %v, want zk.ErrNoAuth", err)
	}
	if err := authed.Delete(ctx, root+"/a"); err != nil {
		t.Fatalf("Delete with auth: %v", err)
	}

	p.Sever()
	r.await(t, C, S, R)
	if err := authed.Delete(ctx, root+"/b"); err != nil {
		t.Fatalf("Delete with auth after a reconnect: %v", err)
	}

	sid := authed.SessionID()
	p.Pause()
	r.await(t, C, S, R, S, L)
	p.Resume()
	r.await(t, C, S, R, S, L, R)
	if authed.SessionID() == sid {
		t.Fatal("the session was not replaced")
	}
	if err := authed.Delete(ctx, root+"/c"); err != nil {
		t.Fatalf("Delete with auth after the session was replaced: %v", err)
	}
	if data, _, err := authed.GetData(ctx, root); err != nil || string(data) != "r" {
		t.Fatalf("GetData with auth after the session was replaced: %q, %v", data, err)
	}
}

// prefixACL gives nodes under prefix a world ACL without delete and write.
type prefixACL struct{ prefix string }

func (prefixACL) DefaultACL() []zk.ACL { return zk.WorldACL(zk.PermAll) }
func (a prefixACL) ACLForPath(path string) []zk.ACL {
	if strings.HasPrefix(path, a.prefix) {
		return zk.WorldACL(zk.PermRead | zk.PermCreate)
	}
	return nil
}

func TestACLProvider(t *testing.T) {
	srv := sharedServer(t)
	root := testRoot(t)
	c := newClient(t, srv.ConnectString(), framework.WithACLProvider(prefixACL{prefix: root + "/ro"}))
	ctx := testCtx(t)
	if _, err := c.Create(ctx, root+"/ro/leaf", nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]zk.ACL{
		root:              zk.WorldACL(zk.PermAll),
		root + "/ro":      zk.WorldACL(zk.PermRead | zk.PermCreate),
		root + "/ro/leaf": zk.WorldACL(zk.PermRead | zk.PermCreate),
	} {
		got, _, err := c.Conn().GetACL(path)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ACL of %s = %v, %v; want %v", path, got, err, want)
		}
	}
	if err := c.Delete(ctx, root+"/ro/leaf"); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("delete under a node without delete permission: %v, want zk.ErrNoAuth", err)
	}
}
