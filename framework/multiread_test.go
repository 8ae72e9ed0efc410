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

// MultiRead's results are GetData's and Children's of the same nodes, in
// the order of its ops; a missing node fails its own op alone.
func TestMultiReadMatchesSingleReads(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	for _, n := range []struct {
		path string
		data []byte
	}{{root, []byte("top")}, {root + "/a", []byte("alpha")}, {root + "/b", nil}, {root + "/a/x", []byte{}}, {root + "/a/y", []byte("why")}} {
		if _, err := c.Create(ctx, n.path, n.data); err != nil {
			t.Fatal(err)
		}
	}
	ops := []framework.ReadOp{
		framework.GetDataOp(root), framework.ChildrenOp(root),
		framework.GetDataOp(root + "/missing"), framework.ChildrenOp(root + "/missing"),
		framework.GetDataOp(root + "/a"), framework.ChildrenOp(root + "/a"),
		framework.GetDataOp(root + "/b"), framework.ChildrenOp(root + "/b"),
		framework.GetDataOp(root + "/a/x"), framework.GetDataOp(root + "/a/y"),
	}
	got, err := c.MultiRead(ctx, ops...)
	if err != nil {
		t.Fatalf("MultiRead: %v", err)
	}
	if len(got) != len(ops) {
		t.Fatalf("%d results for %d ops", len(got), len(ops))
	}
	for i, p := range []string{root, root + "/missing", root + "/a", root + "/b", root + "/a/x", root + "/a/y"} {
		idx := []int{0, 2, 4, 6, 8, 9}[i]
		data, st, err := c.GetData(ctx, p)
		r := got[idx]
		if !errors.Is(r.Err, zk.ErrNoNode) && errors.Is(err, zk.ErrNoNode) || (r.Err == nil) != (err == nil) {
			t.Fatalf("GetDataOp(%s): error %v, GetData's %v", p, r.Err, err)
		}
		if err != nil {
			continue
		}
		if string(r.Data) != string(data) || *r.Stat != *st {
			t.Fatalf("GetDataOp(%s) = %q %+v, GetData = %q %+v", p, r.Data, *r.Stat, data, *st)
		}
		if r.Children != nil {
			t.Fatalf("GetDataOp(%s) listed children %q", p, r.Children)
		}
	}
	for _, i := range []int{1, 3, 5, 7} {
		p := root + map[int]string{1: "", 3: "/missing", 5: "/a", 7: "/b"}[i]
		names, _, err := c.Children(ctx, p)
		r := got[i]
		if errors.Is(err, zk.ErrNoNode) {
			if !errors.Is(r.Err, zk.ErrNoNode) {
				t.Fatalf("ChildrenOp(%s): error %v, want ErrNoNode", p, r.Err)
			}
			continue
		}
		slices.Sort(names)
		slices.Sort(r.Children)
		if r.Err != nil || !slices.Equal(names, r.Children) || r.Stat != nil {
			t.Fatalf("ChildrenOp(%s) = %q %v (stat %v), Children = %q", p, r.Children, r.Err, r.Stat, names)
		}
	}
}

// On a namespace view the ops' paths are relative to the namespace; on a
// Compressed view the data comes back decompressed, and data that does not
// decompress fails its op alone with ErrDecompression and its Stat.
func TestMultiReadNamespaceAndCompression(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	ns := c.UsingNamespace(strings.TrimPrefix(testRoot(t), "/"))
	z := ns.Compressed()
	if _, err := z.Create(ctx, "/packed", []byte("squeezed"), framework.Compressed()); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Create(ctx, "/plain", []byte("not gzip")); err != nil {
		t.Fatal(err)
	}
	got, err := z.MultiRead(ctx, framework.GetDataOp("/packed"), framework.GetDataOp("/plain"), framework.ChildrenOp("/"))
	if err != nil {
		t.Fatalf("MultiRead: %v", err)
	}
	if got[0].Err != nil || string(got[0].Data) != "squeezed" {
		t.Fatalf("compressed node: %q %v, want its data decompressed", got[0].Data, got[0].Err)
	}
	if !errors.Is(got[1].Err, framework.ErrDecompression) || got[1].Stat == nil || got[1].Data != nil {
		t.Fatalf("uncompressed node: %q %v (stat %v), want ErrDecompression with its Stat", got[1].Data, got[1].Err, got[1].Stat)
	}
	names := got[2].Children
	slices.Sort(names)
	if !slices.Equal(names, []string{"packed", "plain"}) {
		t.Fatalf("the namespace's children: %q", names)
	}
}

// A path MultiRead refuses fails the call before any request, naming it; a
// request above 1 MB too; no ops is no request.
func TestMultiReadInvalid(t *testing.T) {
	c := newUnstartedClient(t, deadAddr(t))
	ctx := testCtx(t)
	if _, err := c.MultiRead(ctx, framework.GetDataOp("/ok"), framework.ChildrenOp("bad")); !errors.Is(err, framework.ErrInvalidPath) || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("MultiRead of a relative path = %v, want ErrInvalidPath naming it", err)
	}
	ops := make([]framework.ReadOp, 0, 20000)
	for range cap(ops) {
		ops = append(ops, framework.GetDataOp("/"+strings.Repeat("n", 50)))
	}
	if _, err := c.MultiRead(ctx, ops...); !errors.Is(err, framework.ErrInvalidArgument) {
		t.Fatalf("MultiRead of %d ops = %v, want ErrInvalidArgument", len(ops), err)
	}
	if got, err := c.MultiRead(ctx); got != nil || err != nil {
		t.Fatalf("MultiRead() = %v, %v, want nothing", got, err)
	}
}

// A server without multiRead (older than 3.6) answers UNIMPLEMENTED and
// closes the connection: MultiRead fails with ErrMultiReadUnsupported and
// the client connects again. The real server is made to answer so by an
// opcode it does not know in multiRead's place.
func TestMultiReadUnsupportedServer(t *testing.T) {
	framework.SendMultiReadAs(t, 9999)
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	_, err := c.MultiRead(testCtx(t), framework.GetDataOp("/"))
	if !errors.Is(err, framework.ErrMultiReadUnsupported) {
		t.Fatalf("MultiRead = %v, want ErrMultiReadUnsupported", err)
	}
	if _, err := c.Exists(testCtx(t), "/"); err != nil {
		t.Fatalf("a request after the refusal: %v", err)
	}
}

// A multiRead whose reply is lost (the connection cut in its place) is sent
// again on the next connection, and returns what the server holds.
func TestMultiReadRetriedAfterLostReply(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr())
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := c.Create(ctx, root, []byte("kept")); err != nil {
		t.Fatal(err)
	}
	p.LoseNextReply(zktest.OpMultiRead)
	got, err := c.MultiRead(ctx, framework.GetDataOp(root))
	if err != nil {
		t.Fatalf("MultiRead after a lost reply: %v", err)
	}
	if string(got[0].Data) != "kept" || p.LostReplies() != 1 {
		t.Fatalf("MultiRead = %q after %d lost replies, want %q after 1", got[0].Data, p.LostReplies(), "kept")
	}
}
