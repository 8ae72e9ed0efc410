package cache_test

import (
	"bytes"

	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// After a session expiry the cache reads its tree again on the new session
// and reports exactly what changed while it could not watch.
func TestTreeCacheReportsWhatChangedAcrossASessionExpiry(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(time.Second))
	ctx := testCtx(t)
	for _, n := range []string{"/exp/keep", "/exp/change", "/exp/gone"} {
		_, err := admin.Create(ctx, n, []byte("v0"), framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	tc := startTree(t, c, "/exp")
	ev := tc.Events()
	expect(t, ev, "NODE_ADDED /exp", "NODE_ADDED /exp/change", "NODE_ADDED /exp/gone", "NODE_ADDED /exp/keep", "INITIALIZED")

	p.Pause()
	expect(t, ev, "CONNECTION_SUSPENDED", "CONNECTION_LOST")
	_, err := admin.SetData(ctx, "/exp/change", []byte("v1"), -1)
	must(t, err)
	must(t, admin.Delete(ctx, "/exp/gone"))
	_, err = admin.Create(ctx, "/exp/new", []byte("v0"))
	must(t, err)
	p.Resume()
	// The new session's notice and the differences come on separate
	// streams (connection states, watch notifications): in either order.
	got := map[string]bool{}
	for range 4 {
		got[next(t, ev).String()] = true
	}
	for _, w := range []string{"CONNECTION_RECONNECTED", "NODE_UPDATED /exp/change (version 1)", "NODE_REMOVED /exp/gone (version 0)", "NODE_ADDED /exp/new (version 0)"} {
		if !got[w] {
			t.Fatalf("after the expiry: events %v, want %q among them", got, w)
		}
	}
	// Nothing else: a later change is the next event.
	_, err = admin.SetData(ctx, "/exp/keep", []byte("v1"), -1)
	must(t, err)
	if e := next(t, ev); e.String() != "NODE_UPDATED /exp/keep (version 1)" {
		t.Fatalf("an event for a state the cache already held, or a missed one: %v", e)
	}
}

// A writer creates, sets and deletes nodes across a tree while the cache's
// connection is severed and paused and the server restarts. At the end the
// cache holds exactly the server's tree, and replaying its events from
// empty gives that tree too.
func TestTreeCacheMatchesTheServerAfterRandomChangesAndFaults(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	writer := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr()+","+p.Addr(), framework.WithSessionTimeout(4*time.Second))
	ctx := testCtx(t)
	const root = "/random"
	_, err := writer.Create(ctx, root, nil)
	must(t, err)
	tc := startTree(t, c, root)

	replayed := replay(tc.Events())

	randomChangesUnderFaults(t, srv, p, writer, c, root)

	want := serverTree(t, writer, root)
	zktest.Eventually(t, 20*time.Second, "the cache to match the server's tree", func() bool {
		return sameTree(nodesByPath(tc.Snapshot()), want)
	})
	zktest.Eventually(t, 20*time.Second, "replaying the events to give the server's tree", func() bool {
		return replayed.matches(t, want)
	})
	must(t, tc.Close())
	must(t, replayed.wait())
	t.Logf("%d nodes at the end", len(want))
}

// randomChangesUnderFaults runs a writer's random creates, changes, deletes
// and deletes-then-creates-again below root while the cache client c's
// connection (through p) is severed and paused, srv restarts, and c's
// session expires.
func randomChangesUnderFaults(t *testing.T, srv *zktest.Server, p *zktest.Proxy, writer, c *framework.Client, root string) {
	t.Helper()
	ctx := testCtx(t)
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"a", "b", "c", "d"}
	randomPath := func() string {
		parts := []string{root}
		for range 1 + rng.IntN(3) {
			parts = append(parts, names[rng.IntN(len(names))])
		}
		return strings.Join(parts, "/")
	}
	const ops = 3000
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; i < ops && time.Now().Before(deadline); i++ {
		switch i {
		case ops / 5:
			p.Sever()
		case 2 * ops / 5:
			p.Pause()
		case 2*ops/5 + 100:
			p.Resume()
		case 3 * ops / 5:
			must(t, srv.Restart())
		case 4 * ops / 5: // past the session: a new session, every watch set again
			p.Pause()
			zktest.Eventually(t, 20*time.Second, "the cache's session lost", func() bool { return c.State() == framework.Lost })
			p.Resume()
		}
		path := randomPath()
		var err error
		switch rng.IntN(4) {
		case 0:
			_, err = writer.Create(ctx, path, []byte(fmt.Sprint(i)), framework.CreatingParentsIfNeeded())
		case 1:
			_, err = writer.SetData(ctx, path, []byte(fmt.Sprint(i)), -1)
		case 2:
			err = writer.Delete(ctx, path, framework.DeletingChildrenIfNeeded())
		default: // the same data again, at version 0 again
			stat, serr := writer.Exists(ctx, path)
			if serr != nil || stat == nil || stat.NumChildren > 0 {
				continue
			}
			data, _, gerr := writer.GetData(ctx, path)
			if gerr != nil {
				continue
			}
			if err = writer.Delete(ctx, path); err == nil {
				_, err = writer.Create(ctx, path, data)
			}
		}
		if err != nil && !errors.Is(err, zk.ErrNodeExists) && !errors.Is(err, zk.ErrNoNode) {
			t.Fatalf("op %d on %s: %v", i, path, err)
		}
	}

}

// apply replays e onto tree, refusing an event for a state the tree never
// held: an addition of a node it holds, an update or removal of one it does
// not, a node added under a parent it does not hold, or a parent removed
// before its children.
func apply(tree map[string]cache.Node, e cache.Event) error {
	p := e.Node.Path
	_, held := tree[p]
	switch e.Type {
	case cache.NodeAdded:
		if held {
			return fmt.Errorf("%v: added twice", e)
		}
		if parent := p[:strings.LastIndex(p, "/")]; len(tree) > 0 && parent != "" {
			if _, ok := tree[parent]; !ok {
				return fmt.Errorf("%v: its parent is not held", e)
			}
		}
		tree[p] = e.Node
	case cache.NodeUpdated:
		if !held {
			return fmt.Errorf("%v: an update of a node not held", e)
		}
		tree[p] = e.Node
	case cache.NodeRemoved:
		if !held {
			return fmt.Errorf("%v: a removal of a node not held", e)
		}
		for q := range tree {
			if strings.HasPrefix(q, p+"/") {
				return fmt.Errorf("%v: removed before its child %s", e, q)
			}
		}
		delete(tree, p)
	}
	return nil
}

// serverTree reads the subtree at root straight from the server.
func serverTree(t *testing.T, c *framework.Client, root string) map[string]cache.Node {
	t.Helper()
	ctx := testCtx(t)
	out := map[string]cache.Node{}
	var walk func(p string)
	walk = func(p string) {
		data, stat, err := c.GetData(ctx, p)
		must(t, err)
		out[p] = cache.Node{Path: p, Data: data, Stat: *stat}
		names, _, err := c.Children(ctx, p)
		must(t, err)
		slices.Sort(names)
		for _, n := range names {
			walk(p + "/" + n)
		}
	}
	walk(root)
	return out
}

func nodesByPath(nodes []cache.Node) map[string]cache.Node {
	out := make(map[string]cache.Node, len(nodes))
	for _, n := range nodes {
		out[n.Path] = n
	}
	return out
}

// sameTree compares paths, data, czxid and data version.
func sameTree(got, want map[string]cache.Node) bool {
	if len(got) != len(want) {
		return false
	}
	for p, w := range want {
		g, ok := got[p]
		if !ok || !bytes.Equal(g.Data, w.Data) || g.Stat.Czxid != w.Stat.Czxid || g.Stat.Version != w.Stat.Version {
			return false
		}
	}
	return true
}

// A suspension that strikes while the cache is reading a changed node is
// reported at once, not after the read gives up or the connection returns;
// the change is still reported after the reconnect.
func TestSuspensionIsReportedWhileAReadWaits(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(4*time.Second))
	ctx := testCtx(t)
	_, err := admin.Create(ctx, "/stuck", []byte("v0"))
	must(t, err)
	nc, err := cache.NewNodeCache(c, "/stuck")
	must(t, err)
	defer nc.Close()
	must(t, nc.Start(ctx))
	ev := nc.Events()
	expect(t, ev, "NODE_ADDED /stuck", "INITIALIZED")
	suspended := make(chan time.Time, 1)
	stop := c.Listen(func(s framework.ConnectionState) {
		if s == framework.Suspended {
			select {
			case suspended <- time.Now():
			default:
			}
		}
	})
	defer stop()

	// Slow the link so that the cache's read of the change is still on its
	// way when the partition begins, and hold it there.
	p.SetLatency(300 * time.Millisecond)
	reads := p.RequestCount(zktest.OpGetData)
	_, err = admin.SetData(ctx, "/stuck", []byte("v1"), -1)
	must(t, err)
	zktest.Eventually(t, 10*time.Second, "the cache reads the changed node", func() bool {
		return p.RequestCount(zktest.OpGetData) > reads
	})
	p.Pause()
	var at time.Time
	select {
	case at = <-suspended:
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not suspend")
	}
	expect(t, ev, "CONNECTION_SUSPENDED")
	// The read waits up to the connection timeout (5 s) for a reconnect;
	// the suspension must not wait behind it.
	if late := time.Since(at); late > 2*time.Second {
		t.Fatalf("the suspension was reported %v after the client's, behind the cache's read", late)
	}
	p.SetLatency(0)
	p.Resume()
	expect(t, ev, "CONNECTION_RECONNECTED")
	if e := next(t, ev); e.String() != "NODE_UPDATED /stuck (version 1)" {
		t.Fatalf("after the reconnect: %v, want the change", e)
	}
}
