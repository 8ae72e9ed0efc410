package framework_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

func TestNamespaces(t *testing.T) {
	srv := sharedServer(t)
	observer := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	ns := strings.TrimPrefix(testRoot(t), "/") + "/app"
	c := newClient(t, srv.ConnectString(), framework.WithNamespace(ns))
	if c.Namespace() != ns {
		t.Fatalf("Namespace() = %q, want %q", c.Namespace(), ns)
	}

	got, err := c.Create(ctx, "/x", []byte("d"))
	if err != nil || got != "/x" {
		t.Fatalf("Create = %q, %v; want %q", got, err, "/x")
	}
	if data, _, err := observer.GetData(ctx, "/"+ns+"/x"); err != nil || !bytes.Equal(data, []byte("d")) {
		t.Fatalf("node on the server: %q, %v", data, err)
	}
	seq, err := c.Create(ctx, "/x/s-", nil, framework.WithMode(framework.PersistentSequential))
	if err != nil || !strings.HasPrefix(seq, "/x/s-") || len(seq) != len("/x/s-")+10 {
		t.Fatalf("sequential Create = %q, %v", seq, err)
	}
	if st, err := c.Exists(ctx, "/"); err != nil || st == nil || st.NumChildren != 1 {
		t.Fatalf("Exists(/) in the namespace = %+v, %v", st, err)
	}

	// The transaction's paths are namespaced, its results stripped.
	res, err := c.Transaction(ctx,
		&zk.CreateRequest{Path: "/t", Data: []byte("1")},
		&zk.SetDataRequest{Path: "/x", Data: []byte("e"), Version: 0},
		&zk.CheckVersionRequest{Path: "/x", Version: 1},
		&zk.DeleteRequest{Path: seq, Version: -1})
	if err != nil || len(res) != 4 || res[0].String != "/t" {
		t.Fatalf("Transaction = %+v, %v", res, err)
	}
	if _, err := c.Transaction(ctx, "not an op"); err == nil || !strings.Contains(err.Error(), "string") {
		t.Fatalf("Transaction with a bad op: %v", err)
	}
	if st, err := observer.Exists(ctx, "/"+ns+"/t"); err != nil || st == nil {
		t.Fatalf("transaction create on the server: %+v, %v", st, err)
	}

	// A view shares the session; its own namespace applies.
	other := c.UsingNamespace(ns + "2")
	if other.SessionID() != c.SessionID() || other.State() != c.State() {
		t.Fatal("UsingNamespace does not share the connection")
	}
	eph, err := other.Create(ctx, "/e", nil, framework.WithMode(framework.Ephemeral))
	if err != nil || eph != "/e" {
		t.Fatalf("Create in the view = %q, %v", eph, err)
	}
	st, err := observer.Exists(ctx, "/"+ns+"2/e")
	if err != nil || st == nil || st.EphemeralOwner != c.SessionID() {
		t.Fatalf("view's node on the server: %+v, %v", st, err)
	}
	plain := c.UsingNamespace("")
	if st, err := plain.Exists(ctx, "/"+ns+"/x"); err != nil || st == nil {
		t.Fatalf("Exists through the namespace-free view: %+v, %v", st, err)
	}
	bad := c.UsingNamespace("/lead")
	if _, err := bad.Exists(ctx, "/"); err == nil || !strings.Contains(err.Error(), `"/lead"`) {
		t.Fatalf("bad namespace view: %v", err)
	}

	// The namespace root is a container: the server removes it once it is empty.
	for _, p := range []string{"/x", "/t"} {
		if err := c.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the empty namespace container to be reaped", func() bool {
		st, err := observer.Exists(ctx, "/"+ns)
		return err == nil && st == nil
	})
}

func TestNamespaceValidation(t *testing.T) {
	for _, ns := range []string{"/a", "a/", "a//b", "a/./b", "a\x00"} {
		_, err := framework.NewClient("127.0.0.1:1", testPolicy, framework.WithNamespace(ns))
		if err == nil || !strings.Contains(err.Error(), "namespace") {
			t.Errorf("namespace %q: %v, want an error", ns, err)
		}
	}
}

// CreatingParentContainersIfNeeded makes parents the server removes once empty;
// CreatingParentsIfNeeded makes persistent ones that stay.
func TestParentContainers(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := c.Create(ctx, root+"/c/a/b/leaf", nil); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("Create without parents: %v, want zk.ErrNoNode", err)
	}
	if _, err := c.Create(ctx, root+"/c/a/b/leaf", nil, framework.CreatingParentContainersIfNeeded()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, root+"/p/a/b/leaf", nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateContainers(ctx, root+"/k/a"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateContainers(ctx, root+"/k/a"); err != nil {
		t.Fatalf("CreateContainers on an existing node: %v", err)
	}
	if _, err := c.Create(ctx, root+"/k/a/leaf", nil); err != nil {
		t.Fatal(err)
	}
	for _, leaf := range []string{root + "/c/a/b/leaf", root + "/p/a/b/leaf", root + "/k/a/leaf"} {
		if err := c.Delete(ctx, leaf); err != nil {
			t.Fatal(err)
		}
	}
	for _, gone := range []string{root + "/c/a", root + "/k/a"} {
		eventually(t, gone+" to be reaped", func() bool {
			st, err := c.Exists(ctx, gone)
			return err == nil && st == nil
		})
	}
	if st, err := c.Exists(ctx, root+"/p/a/b"); err != nil || st == nil {
		t.Fatalf("persistent parent was removed: %+v, %v", st, err)
	}
}
