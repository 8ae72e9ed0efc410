package framework_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// A multiRead whose reply is larger than one node can be (several nodes
// of data near ZooKeeper's 1 MB limit) still returns every node's data:
// the limit bounds a request, not a reply the client reads.
func TestMultiReadReplyAboveOneMegabyte(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := c.Create(ctx, root, nil); err != nil {
		t.Fatal(err)
	}
	const nodes, size = 4, 1000 * 1000
	var ops []framework.ReadOp
	for i := range nodes {
		p := root + "/big" + string(rune('a'+i))
		if _, err := c.Create(ctx, p, bytes.Repeat([]byte{byte('a' + i)}, size)); err != nil {
			t.Fatalf("creating %s of %d bytes: %v", p, size, err)
		}
		ops = append(ops, framework.GetDataOp(p))
	}
	got, err := c.MultiRead(ctx, ops...)
	if err != nil {
		t.Fatalf("MultiRead of %d nodes of %d bytes: %v", nodes, size, err)
	}
	for i, r := range got {
		if r.Err != nil || len(r.Data) != size || r.Data[0] != byte('a'+i) {
			t.Fatalf("node %d: %d bytes, %v", i, len(r.Data), r.Err)
		}
	}
}

// An op's error names its path as GetData's and Children's do, and still
// matches go-zookeeper's error: a node of another user's ACL (NoAuth) and a
// missing node (NoNode), among ops that succeed.
func TestMultiReadOpErrorsNameTheirPath(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := c.Create(ctx, root, []byte("open")); err != nil {
		t.Fatal(err)
	}
	secret := root + "/secret"
	if _, err := c.Create(ctx, secret, []byte("s"), framework.WithACL(zk.DigestACL(zk.PermAll, "owner", "pw")...)); err != nil {
		t.Fatal(err)
	}
	missing := root + "/missing"
	got, err := c.MultiRead(ctx, framework.GetDataOp(root), framework.GetDataOp(secret), framework.ChildrenOp(secret), framework.ChildrenOp(missing))
	if err != nil {
		t.Fatalf("MultiRead: %v", err)
	}
	if got[0].Err != nil || string(got[0].Data) != "open" {
		t.Fatalf("the readable node: %q %v", got[0].Data, got[0].Err)
	}
	for i, want := range []struct {
		err  error
		text string
	}{{zk.ErrNoAuth, `get data "` + secret + `"`}, {zk.ErrNoAuth, `children "` + secret + `"`}, {zk.ErrNoNode, `children "` + missing + `"`}} {
		r := got[i+1]
		if !errors.Is(r.Err, want.err) || r.Err == nil || !strings.Contains(r.Err.Error(), want.text) {
			t.Errorf("op %d: %v, want an error matching %v that says %s", i+1, r.Err, want.err, want.text)
		}
	}
}
