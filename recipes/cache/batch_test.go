package cache_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A burst of data changes on distinct leaves costs the cache one getData
// per change and no children listing: the data watch alone fired, and the
// child watch each leaf carries is still armed.
func TestBurstOfDataChangesCostsOneGetDataEach(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	writer := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(20*time.Second))
	ctx := testCtx(t)
	const parents, leaves = 4, 50
	must(t, buildTreeOf(ctx, writer, "/burst", parents, leaves))
	tc := startTree(t, c, "/burst")
	events := tc.Events()
	for ev := next(t, events); ev.Type != cache.Initialized; ev = next(t, events) {
	}

	p.ResetCounts()
	updated := map[string]bool{}
	for i := range parents {
		for j := range leaves {
			path := fmt.Sprintf("/burst/p%03d/c%03d", i, j)
			_, err := writer.SetData(ctx, path, []byte("changed"), -1)
			must(t, err)
		}
	}
	for len(updated) < parents*leaves {
		ev := next(t, events)
		if ev.Type != cache.NodeUpdated {
			t.Fatalf("event %v during the burst, want only updates", ev)
		}
		updated[ev.Node.Path] = true
	}
	if got, want := p.RequestCount(zktest.OpGetData), int64(parents*leaves); got != want {
		t.Errorf("%d getData for %d data changes, want one each", got, want)
	}
	if got := p.RequestCount(zktest.OpGetChildren) + p.RequestCount(zktest.OpGetChildren2); got != 0 {
		t.Errorf("%d children listings for data changes alone, want none", got)
	}
	if other := p.RequestTotal() - p.RequestCount(zktest.OpGetData); other != 0 {
		t.Errorf("%d requests besides the getData (pings not counted), want none", other)
	}
}

// awaitServerTree waits until tc holds the server's tree at root, as writer
// reads it, and replaying tc's events gives the same.
func awaitServerTree(t *testing.T, writer *framework.Client, root string, tc *cache.TreeCache, events *replayer, what string) {
	t.Helper()
	want := serverTree(t, writer, root)
	zktest.Eventually(t, 30*time.Second, what+": the cache to match the server", func() bool {
		return sameTree(nodesByPath(tc.Snapshot()), want)
	})
	zktest.Eventually(t, 30*time.Second, what+": the events to replay to the server's tree", func() bool {
		return events.matches(t, want)
	})
}

// A child added right after a data change of its parent is reported: the
// parent's data alone is read again, and the parent's child watch, still
// armed, reports the child.
func TestChildAddedRightAfterADataChangeIsReported(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	const root = "/after"
	_, err := writer.Create(ctx, root+"/x", []byte("v0"), framework.CreatingParentsIfNeeded())
	must(t, err)
	tc := startTree(t, c, root)
	events := replay(tc.Events())

	for i := range 20 {
		_, err := writer.SetData(ctx, root+"/x", []byte(fmt.Sprint(i)), -1)
		must(t, err)
		_, err = writer.Create(ctx, fmt.Sprintf("%s/x/k%02d", root, i), nil)
		must(t, err)
		if i%2 == 1 { // and a child of the child: a data change, then a new grandchild
			_, err = writer.SetData(ctx, fmt.Sprintf("%s/x/k%02d", root, i-1), []byte("v1"), -1)
			must(t, err)
			_, err = writer.Create(ctx, fmt.Sprintf("%s/x/k%02d/g", root, i-1), nil)
			must(t, err)
		}
	}
	awaitServerTree(t, writer, root, tc, events, "every child added")
	must(t, tc.Close())
	must(t, events.wait())
}

// When a node and one below it are both changed in one step (the cache's
// connection held while the writer works, so that the notifications come
// together), the cache ends holding the server's tree, and its events
// replay to it in a valid order: no update of a node after its removal
// without an addition between.
func TestParentAndChildChangedTogether(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	writer := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(20*time.Second))
	ctx := testCtx(t)
	const root = "/together"
	for _, n := range []string{"/p/c/g", "/q/c"} {
		_, err := writer.Create(ctx, root+n, []byte("v0"), framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	tc := startTree(t, c, root)
	events := replay(tc.Events())

	rounds := []struct {
		name  string
		write func(i int) error
	}{
		{"a child's data and its parent's children", func(i int) error {
			if _, err := writer.SetData(ctx, root+"/p/c", []byte(fmt.Sprint(i)), -1); err != nil {
				return err
			}
			_, err := writer.Create(ctx, fmt.Sprintf("%s/p/n%02d", root, i), nil)
			return err
		}},
		{"a parent deleted and created again with a child of the same name", func(i int) error {
			if err := writer.Delete(ctx, root+"/q", framework.DeletingChildrenIfNeeded()); err != nil {
				return err
			}
			_, err := writer.Transaction(ctx,
				&zk.CreateRequest{Path: root + "/q", Data: []byte(fmt.Sprint(i))},
				&zk.CreateRequest{Path: root + "/q/c", Data: []byte("v0")})
			return err
		}},
		{"a grandchild's data, its parent's data and the root's children", func(i int) error {
			for _, n := range []string{"/p/c/g", "/p/c"} {
				if _, err := writer.SetData(ctx, root+n, []byte(fmt.Sprint(i)), -1); err != nil {
					return err
				}
			}
			_, err := writer.Create(ctx, fmt.Sprintf("%s/r%02d", root, i), nil)
			return err
		}},
		{"a child's data set, then its parent deleted and created again", func(i int) error {
			if _, err := writer.SetData(ctx, root+"/q/c", []byte("x"), -1); err != nil {
				return err
			}
			if err := writer.Delete(ctx, root+"/q", framework.DeletingChildrenIfNeeded()); err != nil {
				return err
			}
			_, err := writer.Transaction(ctx,
				&zk.CreateRequest{Path: root + "/q", Data: []byte(fmt.Sprint(i))},
				&zk.CreateRequest{Path: root + "/q/c", Data: []byte("v0")})
			return err
		}},
	}
	for i := range 5 {
		for _, r := range rounds {
			p.Pause()
			err := r.write(i)
			p.Resume()
			if err != nil {
				t.Fatalf("%s, round %d: %v", r.name, i, err)
			}
			awaitServerTree(t, writer, root, tc, events, r.name)
		}
	}
	must(t, tc.Close())
	must(t, events.wait())
}

// A burst of changes across a tree while a fault strikes the cache's
// connection in the middle of its batched reads: the reply to one of them
// lost, the connection severed, or the session expired. The cache ends
// holding the server's tree, and its events replay to it.
func TestBatchedReadsThroughFaults(t *testing.T) {
	faults := []struct {
		name   string
		strike func(t *testing.T, p *zktest.Proxy, c *framework.Client)
	}{
		{"a lost getData reply", func(t *testing.T, p *zktest.Proxy, _ *framework.Client) {
			lost := p.LostReplies()
			p.LoseNextReply(zktest.OpGetData)
			zktest.Eventually(t, 20*time.Second, "a getData reply lost", func() bool { return p.LostReplies() > lost })
		}},
		{"a severed connection", func(_ *testing.T, p *zktest.Proxy, _ *framework.Client) { p.Sever() }},
		{"an expired session", func(t *testing.T, p *zktest.Proxy, c *framework.Client) {
			p.Pause()
			zktest.Eventually(t, 20*time.Second, "the cache's session lost", func() bool { return c.State() == framework.Lost })
			p.Resume()
		}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			srv := zktest.StartServer(t)
			p := zktest.StartProxy(t, srv.ConnectString())
			writer := zkclient.New(t, srv.ConnectString())
			c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(2*time.Second))
			ctx := testCtx(t)
			const root, parents, leaves = "/faulty", 4, 30
			must(t, buildTreeOf(ctx, writer, root, parents, leaves))
			tc := startTree(t, c, root)
			events := replay(tc.Events())
			p.SetLatency(2 * time.Millisecond) // the reads of a batch stay in flight a while

			const writes = 600
			for i := range writes {
				if i == writes/2 {
					reads := p.RequestCount(zktest.OpGetData)
					zktest.Eventually(t, 20*time.Second, "the cache reading the burst", func() bool {
						return p.RequestCount(zktest.OpGetData) > reads
					})
					f.strike(t, p, c)
				}
				parent := fmt.Sprintf("%s/p%03d", root, i%parents)
				leaf := fmt.Sprintf("%s/c%03d", parent, (i/parents)%leaves)
				var err error
				switch i % 10 {
				case 3: // a parent's data and its children change together
					if _, err = writer.SetData(ctx, parent, []byte(fmt.Sprint(i)), -1); err == nil {
						_, err = writer.Create(ctx, fmt.Sprintf("%s/n%03d", parent, i), nil)
					}
				case 7: // a leaf deleted and created again, with its data
					if err = writer.Delete(ctx, leaf, framework.DeletingChildrenIfNeeded()); err == nil {
						_, err = writer.Create(ctx, leaf, []byte(fmt.Sprint(i)))
					}
				default:
					_, err = writer.SetData(ctx, leaf, []byte(fmt.Sprint(i)), -1)
				}
				if err != nil {
					t.Fatalf("write %d: %v", i, err)
				}
			}
			p.SetLatency(0)
			awaitServerTree(t, writer, root, tc, events, f.name)
			must(t, tc.Close())
			must(t, events.wait())
		})
	}
}

// Every update's Old is the node as the consumer was told of it last (its
// Stat too, although the parent's Stat changes without an event when its
// children do), whether the consumer keeps up or falls so far behind that
// it is caught up by differences.
func TestOldIsTheNodeLastReported(t *testing.T) {
	srv := zktest.StartServer(t)
	writer := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	const root = "/old"
	_, err := writer.Create(ctx, root+"/p/k", nil, framework.CreatingParentsIfNeeded())
	must(t, err)
	tc := startTree(t, c, root)
	events := tc.Events()

	told := map[string]cache.Node{}
	check := func(ev cache.Event) {
		t.Helper()
		switch ev.Type {
		case cache.NodeAdded:
			told[ev.Node.Path] = ev.Node
		case cache.NodeUpdated:
			was := told[ev.Node.Path]
			if ev.Old.Path != was.Path || string(ev.Old.Data) != string(was.Data) || ev.Old.Stat != was.Stat {
				t.Fatalf("%v: Old is %+v, want the node last reported, %+v", ev, ev.Old, was)
			}
			told[ev.Node.Path] = ev.Node
		case cache.NodeRemoved:
			delete(told, ev.Node.Path)
		}
	}
	write := func(i int) {
		t.Helper()
		var err error
		switch i % 4 {
		case 0: // the parent's Stat changes, without an event
			_, err = writer.Create(ctx, fmt.Sprintf("%s/p/n%04d", root, i), nil)
		case 1:
			err = writer.Delete(ctx, fmt.Sprintf("%s/p/n%04d", root, i-1))
		case 2:
			_, err = writer.SetData(ctx, root+"/p", []byte(fmt.Sprint(i)), -1)
		default:
			_, err = writer.SetData(ctx, root+"/p/k", []byte(fmt.Sprint(i)), -1)
		}
		must(t, err)
	}
	drain := func() {
		t.Helper()
		want := serverTree(t, writer, root)
		for i := 0; !sameTree(told, want); i++ {
			if i > 10000 {
				t.Fatal("the events never gave the server's tree")
			}
			check(next(t, events))
		}
	}

	// A consumer that keeps up.
	for i := range 200 {
		write(i)
		if i%4 == 3 {
			drain()
		}
	}
	// One that reads nothing until the cache has dropped its events.
	for i := 200; i < 200+4*cache.Slack; i++ {
		write(i)
	}
	drain()
	// And keeps up again.
	for i := range 40 {
		write(10000 + i)
		drain()
	}
}
