package cache_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestTreeCacheLoadsThenFollowsEveryChange(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	for _, p := range []string{"/tree/a/x", "/tree/b"} {
		_, err := c.Create(ctx, p, []byte(p), framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	tc := startTree(t, c, "/tree")
	ev := tc.Events()
	expect(t, ev, "NODE_ADDED /tree", "NODE_ADDED /tree/a", "NODE_ADDED /tree/a/x", "NODE_ADDED /tree/b", "INITIALIZED")
	if got := tc.Children("/tree"); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Children(/tree) = %v", got)
	}

	_, err := c.Create(ctx, "/tree/a/y", []byte("y"))
	must(t, err)
	expect(t, ev, "NODE_ADDED /tree/a/y")
	_, err = c.SetData(ctx, "/tree/a/y", []byte("y2"), -1)
	must(t, err)
	e := next(t, ev)
	if e.Type != cache.NodeUpdated || string(e.Node.Data) != "y2" || e.Node.Stat.Version != 1 {
		t.Fatalf("after a set: %v with data %q", e, e.Node.Data)
	}
	must(t, c.Delete(ctx, "/tree/a", framework.DeletingChildrenIfNeeded()))
	// Children go before their parent, and every one is reported.
	var removed []string
	for range 3 {
		e := next(t, ev)
		if e.Type != cache.NodeRemoved {
			t.Fatalf("after deleting /tree/a: %v", e)
		}
		removed = append(removed, e.Node.Path)
	}
	if removed[2] != "/tree/a" || !slices.Contains(removed, "/tree/a/x") || !slices.Contains(removed, "/tree/a/y") {
		t.Fatalf("removed %v, want /tree/a/x and /tree/a/y, then /tree/a", removed)
	}
	if _, ok := tc.Current("/tree/a/x"); ok {
		t.Fatal("/tree/a/x is still held after its removal")
	}
	n, ok := tc.Current("/tree/b")
	if !ok || string(n.Data) != "/tree/b" {
		t.Fatalf("Current(/tree/b) = %+v, %v", n, ok)
	}
}

// A node deleted and created again with the same data, between two reads,
// is a new node (a new czxid): removed, then added.
func TestNodeCacheSeesADeletedAndRecreatedNodeAsNew(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	nc, err := cache.NewNodeCache(c, "/flag")
	must(t, err)
	defer nc.Close()
	must(t, nc.Start(ctx))
	ev := nc.Events()
	expect(t, ev, "INITIALIZED")
	if _, ok := nc.Current(); ok {
		t.Fatal("a node that does not exist is held")
	}
	_, err = c.Create(ctx, "/flag", []byte("on"))
	must(t, err)
	expect(t, ev, "NODE_ADDED /flag")
	first, _ := nc.Current()

	// Delete and create again in one transaction: the cache's next read
	// finds the same data and version, but another czxid.
	_, err = c.Transaction(ctx, &zk.DeleteRequest{Path: "/flag", Version: -1}, &zk.CreateRequest{Path: "/flag", Data: []byte("on")})
	must(t, err)
	expect(t, ev, "NODE_REMOVED /flag", "NODE_ADDED /flag")
	second, _ := nc.Current()
	if second.Stat.Czxid == first.Stat.Czxid || string(second.Data) != "on" {
		t.Fatalf("after the re-creation: %+v (czxid was %#x)", second, first.Stat.Czxid)
	}
	must(t, c.Delete(ctx, "/flag"))
	expect(t, ev, "NODE_REMOVED /flag")
}

func TestPathChildrenCacheReportsOnlyTheChildren(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	_, err := c.Create(ctx, "/members/m1", []byte("1"), framework.CreatingParentsIfNeeded())
	must(t, err)
	pc, err := cache.NewPathChildrenCache(c, "/members")
	must(t, err)
	defer pc.Close()
	must(t, pc.Start(ctx))
	ev := pc.Events()
	expect(t, ev, "NODE_ADDED /members/m1", "INITIALIZED")
	_, err = c.SetData(ctx, "/members", []byte("parent data"), -1) // not reported
	must(t, err)
	_, err = c.Create(ctx, "/members/m1/grandchild", nil) // below the one level: not reported
	must(t, err)
	_, err = c.Create(ctx, "/members/m2", []byte("2"))
	must(t, err)
	expect(t, ev, "NODE_ADDED /members/m2")
	if got := pc.Snapshot(); len(got) != 2 || got[0].Path != "/members/m1" || got[1].Path != "/members/m2" {
		t.Fatalf("Snapshot = %+v", got)
	}
}

func TestTreeCacheDepthAndSelector(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	for _, p := range []string{"/d/keep/deep", "/d/skip/deep"} {
		_, err := c.Create(ctx, p, nil, framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	tc := startTree(t, c, "/d", cache.WithMaxDepth(1), cache.WithSelector(func(p string) bool { return p != "/d/skip" }))
	expect(t, tc.Events(), "NODE_ADDED /d", "NODE_ADDED /d/keep", "INITIALIZED")
	_, err := c.Create(ctx, "/d/keep/deep2", nil) // depth 2: not followed
	must(t, err)
	_, err = c.Create(ctx, "/d/skip/x", nil) // not selected
	must(t, err)
	_, err = c.Create(ctx, "/d/new", nil)
	must(t, err)
	expect(t, tc.Events(), "NODE_ADDED /d/new")
	var paths []string
	for _, n := range tc.Snapshot() {
		paths = append(paths, n.Path)
	}
	if !slices.Equal(paths, []string{"/d", "/d/keep", "/d/new"}) {
		t.Fatalf("Snapshot paths %v", paths)
	}
}

func TestBadInputIsAClearError(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"nil client", func() error { _, err := cache.NewTreeCache(nil, "/a"); return err }()},
		{"invalid path", func() error { _, err := cache.NewTreeCache(c, "a/b"); return err }()},
		{"negative depth", func() error { _, err := cache.NewTreeCache(c, "/a", cache.WithMaxDepth(-1)); return err }()},
		{"nil selector", func() error { _, err := cache.NewTreeCache(c, "/a", cache.WithSelector(nil)); return err }()},
		{"depth on a node cache", func() error { _, err := cache.NewNodeCache(c, "/a", cache.WithMaxDepth(2)); return err }()},
	} {
		if !errors.Is(tc.err, cache.ErrInvalidArgument) {
			t.Errorf("%s: %v; want an error matching ErrInvalidArgument", tc.name, tc.err)
		}
	}
	tc, err := cache.NewTreeCache(c, "/a")
	must(t, err)
	must(t, tc.Start(testCtx(t)))
	if err := tc.Start(testCtx(t)); !errors.Is(err, cache.ErrAlreadyStarted) {
		t.Errorf("a second Start: %v; want ErrAlreadyStarted", err)
	}
	must(t, tc.Close())
	if err := tc.Close(); err != nil {
		t.Errorf("a second Close: %v; want nil", err)
	}
	if err := tc.Start(testCtx(t)); !errors.Is(err, cache.ErrClosed) {
		t.Errorf("Start after Close: %v; want ErrClosed", err)
	}
}
