package cache_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A cache's reads before Start answer from what it holds, nothing, and
// refuse nothing (docs/conventions.md): no cache call needs ErrNotStarted.
func TestReadsBeforeStartFindNothing(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	_, err := c.Create(testCtx(t), "/unstarted/child", []byte("x"), framework.CreatingParentsIfNeeded())
	must(t, err)

	tree, err := cache.NewTreeCache(c, "/unstarted")
	must(t, err)
	defer tree.Close()
	if _, ok := tree.Current("/unstarted"); ok || len(tree.Children("/unstarted")) != 0 || len(tree.Snapshot()) != 0 {
		t.Errorf("a tree cache never started holds something")
	}
	node, err := cache.NewNodeCache(c, "/unstarted")
	must(t, err)
	defer node.Close()
	if _, ok := node.Current(); ok {
		t.Errorf("a node cache never started holds its node")
	}
	kids, err := cache.NewPathChildrenCache(c, "/unstarted")
	must(t, err)
	defer kids.Close()
	if _, ok := kids.Current("/unstarted/child"); ok || len(kids.Snapshot()) != 0 {
		t.Errorf("a children cache never started holds something")
	}
	cc, err := cache.NewCuratorCache(c, "/unstarted")
	must(t, err)
	defer cc.Close()
	if _, ok := cc.Get("/unstarted"); ok || cc.Size() != 0 || len(cc.Snapshot()) != 0 || len(cc.Children("/unstarted")) != 0 {
		t.Errorf("a CuratorCache never started holds something")
	}
}
