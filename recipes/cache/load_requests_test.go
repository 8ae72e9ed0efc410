package cache_test

import (
	"fmt"
	"testing"

	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Under a recursive watch a load reads its nodes in multiRead batches of
// cache.BatchReads and lists only the nodes whose Stat counts children: a
// root, one parent and 250 leaves take the root's data and listing, the
// parent's data and listing, and the leaves' data in 3 batches, 7 requests
// in all, where one request a read would take 504. Under one-shot watches
// every node is read and listed on its own, arming its watches.
func TestCuratorCacheLoadBatchesReads(t *testing.T) {
	const leaves = 250
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	for _, m := range curatorModes {
		t.Run(m.name, func(t *testing.T) {
			root := "/batched-" + m.name
			must(t, buildTreeOf(ctx, writer, root, 1, leaves))
			p := zktest.StartProxy(t, srv.ConnectString())
			c := zkclient.New(t, p.Addr())
			p.ResetCounts()
			cc, replayed := startReplayed(t, c, root, m.mode, m.opts...)
			awaitReplayedTree(t, writer, root, cc, replayed)
			reads, batches := p.RequestCount(zktest.OpGetData), p.RequestCount(zktest.OpMultiRead)
			listings := p.RequestCount(zktest.OpGetChildren) + p.RequestCount(zktest.OpGetChildren2)
			t.Logf("a load of %d nodes: %d getData, %d multiRead, %d getChildren", leaves+2, reads, batches, listings)
			wantBatches := int64(4 + (leaves+cache.BatchReads-1)/cache.BatchReads)
			switch {
			case m.mode == cache.RecursiveWatch && (reads != 0 || listings != 0 || batches != wantBatches):
				t.Errorf("the load cost %d getData, %d getChildren and %d multiRead, want 0, 0 and %d", reads, listings, batches, wantBatches)
			case m.mode == cache.OneShotWatches && (reads != leaves+2 || listings != leaves+2 || batches != 0):
				t.Errorf("the load cost %d getData, %d getChildren and %d multiRead, want %d, %d and 0", reads, listings, batches, leaves+2, leaves+2)
			}
		})
	}
}

// A leaf's children are not listed under a recursive watch, yet a child
// created under a leaf right after the load, and one created under a leaf
// while the load reads, are both held: the watch, set before any read,
// reports them.
func TestCuratorCacheLeafChildrenAfterLoad(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	root := "/leafkids"
	must(t, buildTreeOf(ctx, writer, root, 4, 60))
	c := zkclient.New(t, srv.ConnectString())
	done := make(chan error, 1)
	go func() {
		// Under way during the load, or after it: either way announced.
		for i := range 40 {
			if _, err := writer.Create(ctx, fmt.Sprintf("%s/p%03d/c%03d/k", root, i%4, i), []byte("k")); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	cc, replayed := startReplayed(t, c, root, cache.RecursiveWatch)
	must(t, <-done)
	_, err := writer.Create(ctx, root+"/p000/c059/late", nil)
	must(t, err)
	awaitReplayedTree(t, writer, root, cc, replayed)
}

// On a server without multiRead the batches are read one request a node,
// still listing only the nodes whose Stat counts children, and the cache
// still follows its tree: a root, one parent and 30 leaves take 32 getData
// and 2 getChildren, and a change after the load is reported.
func TestCuratorCacheLoadWithoutMultiRead(t *testing.T) {
	const leaves = 30
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	root := "/single"
	must(t, buildTreeOf(ctx, writer, root, 1, leaves))
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr())
	cc, err := cache.NewCuratorCache(c, root)
	must(t, err)
	t.Cleanup(func() { cc.Close() })
	replayed := &changeReplayer{tree: map[string]cache.Node{}}
	cc.Listen(replayed)
	cc.ReadWithoutMultiRead()
	p.ResetCounts()
	must(t, cc.Start(ctx))
	awaitReplayedTree(t, writer, root, cc, replayed)
	reads, batches := p.RequestCount(zktest.OpGetData), p.RequestCount(zktest.OpMultiRead)
	listings := p.RequestCount(zktest.OpGetChildren) + p.RequestCount(zktest.OpGetChildren2)
	if reads != leaves+2 || listings != 2 || batches != 0 {
		t.Errorf("the load cost %d getData, %d getChildren and %d multiRead, want %d, 2 and 0", reads, listings, batches, leaves+2)
	}
	_, err = writer.SetData(ctx, root+"/p000/c007", []byte("changed"), -1)
	must(t, err)
	_, err = writer.Create(ctx, root+"/p000/c007/below", nil)
	must(t, err)
	awaitReplayedTree(t, writer, root, cc, replayed)
}
