package framework_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
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

// A transaction whose reply is lost: Transaction sends it again, and
// TransactionOnce reports the connection loss and never does.
func TestTransactionOnceNeverSendsTwice(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr()+","+p.Addr())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := c.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	seq := func() any { return &zk.CreateRequest{Path: root + "/n-", Flags: zk.FlagSequence} }

	p.LoseNextReply(zktest.OpMulti)
	if _, err := c.Transaction(ctx, seq()); err != nil {
		t.Fatalf("Transaction after a lost reply: %v", err)
	}
	p.LoseNextReply(zktest.OpMulti)
	if _, err := c.TransactionOnce(ctx, seq()); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("TransactionOnce after a lost reply: %v; want an error matching zk.ErrConnectionClosed", err)
	}
	if p.LostReplies() != 2 {
		t.Fatalf("lost replies = %d, want 2", p.LostReplies())
	}
	children, _, err := c.Children(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 3 { // Transaction's two sends and TransactionOnce's one
		t.Fatalf("children %v: want 3 (Transaction sent twice, TransactionOnce once)", children)
	}
}
