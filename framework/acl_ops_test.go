package framework_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// GetACL and SetACL work on namespaced paths, and SetACL checks the ACL
// version.
func TestGetSetACLNamespaced(t *testing.T) {
	srv := sharedServer(t)
	ns := testRoot(t)[1:]
	c := newClient(t, srv.ConnectString(), framework.WithNamespace(ns))
	raw := newClient(t, srv.ConnectString())
	ctx := testCtx(t)

	if _, err := c.Create(ctx, "/n", nil); err != nil {
		t.Fatal(err)
	}
	acl, st, err := c.GetACL(ctx, "/n")
	if err != nil || !slices.Equal(acl, zk.WorldACL(zk.PermAll)) || st.Aversion != 0 {
		t.Fatalf("GetACL = %v, %+v, %v; want world:anyone all at aversion 0", acl, st, err)
	}
	read := zk.WorldACL(zk.PermRead)
	if _, err := c.SetACL(ctx, "/n", read, 5); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("SetACL with a wrong version: %v, want zk.ErrBadVersion", err)
	}
	st, err = c.SetACL(ctx, "/n", read, 0)
	if err != nil || st.Aversion != 1 {
		t.Fatalf("SetACL = %+v, %v; want aversion 1", st, err)
	}
	acl, _, err = raw.GetACL(ctx, "/"+ns+"/n") // the namespace was applied
	if err != nil || !slices.Equal(acl, read) {
		t.Fatalf("GetACL of the full path = %v, %v; want %v", acl, err, read)
	}
	if _, err := c.SetData(ctx, "/n", []byte("x"), -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("SetData on a read-only node: %v, want zk.ErrNoAuth", err)
	}
	if _, _, err := c.GetACL(ctx, "/absent"); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("GetACL of an absent node: %v, want zk.ErrNoNode", err)
	}
	if err := c.Sync(ctx, "/n"); err != nil {
		t.Fatalf("Sync: %v", err)
	}
}

// Sync, GetACL and SetACL are retried after their reply is lost.
func TestSyncAndACLRetriedAfterLostReply(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c := newClient(t, p.Addr())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := c.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}

	p.LoseNextReply(zktest.OpSync)
	if err := c.Sync(ctx, root); err != nil {
		t.Fatalf("Sync after a lost reply: %v", err)
	}
	p.LoseNextReply(zktest.OpGetACL)
	if _, _, err := c.GetACL(ctx, root); err != nil {
		t.Fatalf("GetACL after a lost reply: %v", err)
	}
	p.LoseNextReply(zktest.OpSetACL)
	if _, err := c.SetACL(ctx, root, zk.WorldACL(zk.PermAll), -1); err != nil {
		t.Fatalf("SetACL after a lost reply: %v", err)
	}
	if got := p.LostReplies(); got != 3 {
		t.Fatalf("lost replies = %d, want 3", got)
	}
	if p.RequestCount(zktest.OpSetACL) != 2 {
		t.Fatalf("setACL requests = %d, want 2 (sent again after the loss)", p.RequestCount(zktest.OpSetACL))
	}
}

// Bad input is refused before any request, naming the value.
func TestSyncAndACLBadInput(t *testing.T) {
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c := newClient(t, p.Addr())
	ctx := testCtx(t)
	before := p.RequestTotal()
	for name, err := range map[string]error{
		"sync relative path": c.Sync(ctx, "relative"),
		"get ACL bad path":   func() error { _, _, err := c.GetACL(ctx, "/a/"); return err }(),
		"set ACL bad path":   func() error { _, err := c.SetACL(ctx, "/a//b", zk.WorldACL(zk.PermAll), -1); return err }(),
	} {
		if !errors.Is(err, framework.ErrInvalidPath) {
			t.Errorf("%s: %v, want ErrInvalidPath", name, err)
		}
	}
	for name, tc := range map[string]struct {
		acl     []zk.ACL
		version int32
	}{
		"empty ACL":      {nil, -1},
		"no scheme":      {[]zk.ACL{{Perms: zk.PermAll, ID: "anyone"}}, -1},
		"no permissions": {[]zk.ACL{{Scheme: "world", ID: "anyone"}}, -1},
		"unknown perms":  {[]zk.ACL{{Perms: 0x40, Scheme: "world", ID: "anyone"}}, -1},
		"version -2":     {zk.WorldACL(zk.PermAll), -2},
	} {
		if _, err := c.SetACL(ctx, "/x", tc.acl, tc.version); !errors.Is(err, framework.ErrInvalidArgument) {
			t.Errorf("SetACL with %s: %v, want ErrInvalidArgument", name, err)
		}
	}
	if got := p.RequestTotal() - before; got != 0 {
		t.Fatalf("%d requests were sent for bad input", got)
	}
}
