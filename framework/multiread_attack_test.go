package framework_test

import (
	"bytes"
	"testing"

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
