package cache_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// maxBytesPerNode bounds the heap a loaded TreeCache holds per node,
// go-zookeeper's record of its two watches included (about 540 bytes):
// Curator 5.4's TreeCache holds about 900 on the same tree
// (docs/performance.md); the bound leaves a margin for the Go runtime's
// map sizes, which vary with the tree's size.
const maxBytesPerNode = 1000

// A loaded tree cache holds less than maxBytesPerNode of heap per node:
// the heap in use after a collection, cache loaded and alive, less the same
// before it was built, as testing/recipebench measures it.
func TestHeapPerCachedNode(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	const parents, leaves = 100, 99
	must(t, buildTreeOf(ctx, writer, "/heap", parents, leaves))
	nodes := 1 + parents*(1+leaves)
	_, err := c.Exists(ctx, "/heap") // the client's buffers are in use before
	must(t, err)

	before := heapInUse()
	tc := startTree(t, c, "/heap")
	timeout := time.After(time.Minute) // one timer, not one per event
	for loaded := false; !loaded; {
		select {
		case ev := <-tc.Events():
			loaded = ev.Type == cache.Initialized
		case <-timeout:
			t.Fatal("no Initialized within a minute")
		}
	}
	if got := len(tc.Snapshot()); got != nodes {
		t.Fatalf("the cache holds %d nodes, want %d", got, nodes)
	}
	after := heapInUse()
	runtime.KeepAlive(tc)
	perNode := float64(int64(after)-int64(before)) / float64(nodes)
	t.Logf("%.0f bytes per cached node over %d nodes", perNode, nodes)
	if perNode > maxBytesPerNode {
		t.Errorf("the cache holds %.0f bytes of heap per node, want at most %d", perNode, maxBytesPerNode)
	}
}

// heapInUse returns the bytes of live heap objects after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// maxRecursiveBytesPerNode bounds the heap a loaded CuratorCache holds per
// node under a recursive watch: no watch is recorded per node, by the cache
// or by go-zookeeper (Curator 5.4's CuratorCache holds about 268 bytes per
// node). The bound leaves a margin for the runtime's map sizes.
const maxRecursiveBytesPerNode = 400

// A CuratorCache loaded under a recursive watch holds less heap per node
// than under one-shot watches, and less than maxRecursiveBytesPerNode; each
// mode is measured on a client of its own, as TestHeapPerCachedNode does.
func TestCuratorCacheHeapPerNode(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	const parents, leaves = 100, 99
	nodes := 1 + parents*(1+leaves)
	perNode := map[cache.WatchMode]float64{}
	for _, m := range curatorModes {
		root := "/heap-" + m.name
		must(t, buildTreeOf(ctx, writer, root, parents, leaves))
		c := zkclient.New(t, srv.ConnectString())
		_, err := c.Exists(ctx, root) // the client's buffers are in use before
		must(t, err)

		before := heapInUse()
		cc, err := cache.NewCuratorCache(c, root, m.opts...)
		must(t, err)
		initialized := make(chan struct{})
		l, err := cache.NewListener().ForInitialized(func() { close(initialized) }).Build()
		must(t, err)
		cc.Listen(l)
		must(t, cc.Start(ctx))
		select { // the listener has had every event: none is queued
		case <-initialized:
		case <-time.After(time.Minute):
			t.Fatal("no Initialized within a minute")
		}
		if got := cc.Size(); got != nodes {
			t.Fatalf("%s: the cache holds %d nodes, want %d", m.name, got, nodes)
		}
		after := heapInUse()
		runtime.KeepAlive(cc)
		perNode[m.mode] = float64(int64(after)-int64(before)) / float64(nodes)
		t.Logf("%s: %.0f bytes per cached node over %d nodes", m.name, perNode[m.mode], nodes)
		must(t, cc.Close())
		must(t, c.Close())
	}
	if r, o := perNode[cache.RecursiveWatch], perNode[cache.OneShotWatches]; r > maxRecursiveBytesPerNode || r >= o {
		t.Errorf("a CuratorCache holds %.0f bytes per node under a recursive watch (%.0f under one-shot watches), want at most %d and less than one-shot",
			r, o, maxRecursiveBytesPerNode)
	}
}
