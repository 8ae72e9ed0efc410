package cache_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// slowLoad builds a tree of parents of leaves each at root and returns a
// client whose connection to srv goes through a proxy with latency, so
// that a recursive CuratorCache's batched load of it takes several round
// trips, during which a test changes the tree or strikes a fault.
func slowLoad(t *testing.T, srv *zktest.Server, root string, parents, leaves int, opts ...framework.Option) (*zktest.Proxy, *framework.Client, *framework.Client) {
	t.Helper()
	writer := zkclient.New(t, srv.ConnectString())
	must(t, buildTreeOf(testCtx(t), writer, root, parents, leaves))
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), opts...)
	p.SetLatency(20 * time.Millisecond)
	return p, c, writer
}

// startAsync starts a recursive CuratorCache of root in the background,
// its changes replayed, and returns it with a channel of Start's result.
func startAsync(t *testing.T, c *framework.Client, root string) (*cache.CuratorCache, *changeReplayer, <-chan error) {
	t.Helper()
	cc, err := cache.NewCuratorCache(c, root)
	must(t, err)
	t.Cleanup(func() { cc.Close() })
	replayed := &changeReplayer{tree: map[string]cache.Node{}}
	cc.Listen(replayed)
	started := make(chan error, 1)
	ctx := testCtx(t)
	go func() { started <- cc.Start(ctx) }()
	return cc, replayed, started
}

// awaitBatches waits until the proxy has seen n multiRead requests.
func awaitBatches(t *testing.T, p *zktest.Proxy, n int64) {
	t.Helper()
	zktest.Eventually(t, 20*time.Second, fmt.Sprintf("%d multiRead requests", n), func() bool {
		return p.RequestCount(zktest.OpMultiRead) >= n
	})
}

// While a batched load reads, leaves get a child created and deleted
// again at once, get a child that stays, are deleted and created again
// with children and grandchildren, or are deleted (a NoNode inside a
// batch when read after the listing that named them): after it, the cache and the replay of
// its listener's changes both hold the server's tree.
func TestBatchedLoadLeavesChangingDuringTheLoad(t *testing.T) {
	srv := zktest.StartServer(t)
	const root = "/leafrace"
	p, c, writer := slowLoad(t, srv, root, 6, 150)
	ctx := testCtx(t)
	cc, replayed, started := startAsync(t, c, root)
	awaitBatches(t, p, 2)
	for i := range 80 {
		leaf := fmt.Sprintf("%s/p%03d/c%03d", root, i%6, 149-i)
		var err error
		switch i % 4 {
		case 0: // a child that comes and goes
			_, err = writer.Transaction(ctx,
				&zk.CreateRequest{Path: leaf + "/flash", Data: []byte("f")},
				&zk.DeleteRequest{Path: leaf + "/flash", Version: -1})
			if err == nil {
				_, err = writer.Create(ctx, leaf+"/flash2", nil)
			}
			if err == nil {
				err = writer.Delete(ctx, leaf+"/flash2")
			}
		case 1: // a child that stays
			_, err = writer.Create(ctx, leaf+"/kid", []byte("k"))
		case 3:
			err = writer.Delete(ctx, leaf)
		default: // the leaf replaced by a parent of the same name
			_, err = writer.Transaction(ctx,
				&zk.DeleteRequest{Path: leaf, Version: -1},
				&zk.CreateRequest{Path: leaf, Data: []byte("again")},
				&zk.CreateRequest{Path: leaf + "/k1", Data: []byte("k1")},
				&zk.CreateRequest{Path: leaf + "/k1/g", Data: []byte("g")})
		}
		must(t, err)
	}
	must(t, <-started)
	awaitReplayedTree(t, writer, root, cc, replayed)
}

// A batch's reply lost (the connection cut in its place) during the load,
// twice, and the connection severed once mid-load: the batches are sent
// again, and the cache holds every node once, as the server has it, with
// no node told twice. GetData and Children calls of the same client run
// throughout, and each gets its own reply, never a batch's.
func TestBatchedLoadLostRepliesAndSever(t *testing.T) {
	srv := zktest.StartServer(t)
	const root = "/lostbatch"
	p, c, writer := slowLoad(t, srv, root, 6, 150)
	stop, crossed := make(chan struct{}), make(chan error, 1)
	go func() { crossed <- readAlongside(testCtx(t), c, root, stop) }()
	defer func() {
		close(stop)
		must(t, <-crossed)
	}()
	cc, replayed, started := startAsync(t, c, root)
	awaitBatches(t, p, 3)
	p.LoseNextReply(zktest.OpMultiRead)
	zktest.Eventually(t, 20*time.Second, "a multiRead reply lost", func() bool { return p.LostReplies() == 1 })
	n := p.RequestCount(zktest.OpMultiRead)
	awaitBatches(t, p, n+2)
	p.LoseNextReply(zktest.OpMultiRead)
	zktest.Eventually(t, 20*time.Second, "a second multiRead reply lost", func() bool { return p.LostReplies() == 2 })
	n = p.RequestCount(zktest.OpMultiRead)
	awaitBatches(t, p, n+1)
	p.Sever()
	_, err := writer.Create(testCtx(t), root+"/p000/c000/after", nil)
	must(t, err)
	must(t, <-started)
	awaitReplayedTree(t, writer, root, cc, replayed)
}

// readAlongside reads root's third parent and its listing through c until
// stop, and reports the first answer that is not the node's (a reply handed
// to the wrong request); a connection loss is no such answer.
func readAlongside(ctx context.Context, c *framework.Client, root string, stop <-chan struct{}) error {
	p := root + "/p002"
	for i := 0; i < 100000; i++ {
		select {
		case <-stop:
			return nil
		default:
		}
		data, stat, err := c.GetData(ctx, p)
		if err == nil && (string(data) != "parent" || stat.NumChildren < 150) {
			return fmt.Errorf("GetData(%s) = %q, %d children: not the node's", p, data, stat.NumChildren)
		}
		names, _, err := c.Children(ctx, p)
		if err == nil && (len(names) < 150 || !strings.HasPrefix(names[0], "c")) {
			return fmt.Errorf("Children(%s) = %d names (%.20q...): not the node's", p, len(names), names)
		}
		if err != nil && ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// The cache's session expires while the load reads, and the server restarts
// while the next load reads; the tree changes meanwhile. The cache ends up
// holding the server's tree.
func TestBatchedLoadThroughExpiryAndRestart(t *testing.T) {
	srv := zktest.StartServer(t)
	const root = "/expiring"
	p, c, writer := slowLoad(t, srv, root, 6, 150, framework.WithSessionTimeout(2*time.Second))
	ctx := testCtx(t)
	cc, replayed, started := startAsync(t, c, root)
	awaitBatches(t, p, 3)
	p.Pause()
	zktest.Eventually(t, 20*time.Second, "the cache's session lost", func() bool { return c.State() == framework.Lost })
	must(t, writer.Delete(ctx, root+"/p001", framework.DeletingChildrenIfNeeded()))
	_, err := writer.Create(ctx, root+"/p002/c010/new", []byte("n"))
	must(t, err)
	p.Resume()
	n := p.RequestCount(zktest.OpMultiRead)
	awaitBatches(t, p, n+3)
	must(t, srv.Restart())
	_, err = writer.Create(ctx, root+"/p003/c011/new", []byte("n"))
	for i := 0; err != nil && errors.Is(err, zk.ErrConnectionClosed) && i < 20; i++ {
		_, err = writer.Create(ctx, root+"/p003/c011/new", []byte("n"))
	}
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	must(t, <-started)
	awaitReplayedTree(t, writer, root, cc, replayed)
}

// A node the cache's client may not read (a digest ACL of another user)
// among the nodes of a batch fails the load as the one-shot load does: with
// an error matching zk.ErrNoAuth that names the node, so that whoever reads
// it knows which ACL to look at.
func TestBatchedLoadUnreadableNode(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	const root = "/unreadable"
	must(t, buildTreeOf(ctx, writer, root, 1, 5))
	const secret = root + "/p000/secret"
	acl := zk.DigestACL(zk.PermAll, "owner", "secret")
	_, err := writer.Create(ctx, secret, []byte("s"), framework.WithACL(acl...))
	must(t, err)
	for _, m := range curatorModes {
		t.Run(m.name, func(t *testing.T) {
			c := zkclient.New(t, srv.ConnectString())
			cc, err := cache.NewCuratorCache(c, root, m.opts...)
			must(t, err)
			t.Cleanup(func() { cc.Close() })
			err = cc.Start(zktest.Context(t, 5*time.Second))
			if !errors.Is(err, zk.ErrNoAuth) || !strings.Contains(err.Error(), secret) {
				t.Fatalf("Start = %v, want an error matching zk.ErrNoAuth naming %s", err, secret)
			}
		})
	}
}

// Nodes of long names (10,500 bytes each, as ZooKeeper allows) fill one
// batch's request past ZooKeeper's 1 MB limit: the batched load still
// reads them all, as the one-shot load does.
func TestBatchedLoadLongNames(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	const root = "/longnames"
	_, err := writer.Create(ctx, root, nil)
	must(t, err)
	for i := range cache.BatchReads + 1 {
		_, err := writer.Create(ctx, fmt.Sprintf("%s/%03d%s", root, i, strings.Repeat("n", 10500)), []byte{byte(i)})
		must(t, err)
	}
	for _, m := range curatorModes {
		t.Run(m.name, func(t *testing.T) {
			c := zkclient.New(t, srv.ConnectString())
			cc, err := cache.NewCuratorCache(c, root, m.opts...)
			must(t, err)
			t.Cleanup(func() { cc.Close() })
			replayed := &changeReplayer{tree: map[string]cache.Node{}}
			cc.Listen(replayed)
			must(t, cc.Start(zktest.Context(t, 10*time.Second)))
			awaitReplayedTree(t, writer, root, cc, replayed)
		})
	}
}
