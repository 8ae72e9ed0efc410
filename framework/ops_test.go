package framework_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

func TestCRUD(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)

	p, err := c.Create(ctx, root, []byte("v1"))
	if err != nil || p != root {
		t.Fatalf("Create = %q, %v; want %q", p, err, root)
	}
	if _, err := c.Create(ctx, root, nil); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("second Create: %v, want zk.ErrNodeExists", err)
	}
	data, st, err := c.GetData(ctx, root)
	if err != nil || !bytes.Equal(data, []byte("v1")) || st.Version != 0 {
		t.Fatalf("GetData = %q, %+v, %v", data, st, err)
	}
	if _, err := c.SetData(ctx, root, []byte("v2"), 7); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("SetData with a wrong version: %v, want zk.ErrBadVersion", err)
	}
	st, err = c.SetData(ctx, root, []byte("v2"), 0)
	if err != nil || st.Version != 1 {
		t.Fatalf("SetData = %+v, %v", st, err)
	}
	seq, err := c.Create(ctx, root+"/s-", nil, framework.WithMode(framework.EphemeralSequential))
	if err != nil || len(seq) != len(root+"/s-")+10 {
		t.Fatalf("sequential Create = %q, %v", seq, err)
	}
	children, _, err := c.Children(ctx, root)
	if err != nil || !slices.Equal(children, []string{seq[len(root)+1:]}) {
		t.Fatalf("Children = %v, %v; want the sequential node", children, err)
	}
	if err := c.Delete(ctx, root); !errors.Is(err, zk.ErrNotEmpty) {
		t.Fatalf("Delete of a parent: %v, want zk.ErrNotEmpty", err)
	}
	if err := c.Delete(ctx, root, framework.DeletingChildrenIfNeeded()); err != nil {
		t.Fatalf("Delete with children: %v", err)
	}
	st, err = c.Exists(ctx, root)
	if err != nil || st != nil {
		t.Fatalf("Exists after delete = %+v, %v; want nil, nil", st, err)
	}
	if err := c.Delete(ctx, root); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("Delete of an absent node: %v, want zk.ErrNoNode", err)
	}
	if err := c.Delete(ctx, root, framework.Quietly()); err != nil {
		t.Fatalf("quiet Delete of an absent node: %v", err)
	}
}
