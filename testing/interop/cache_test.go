package interop

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
)

// The kinds CacheCommands.java prints.
const (
	kindCacheStarted = "CACHE_STARTED" // <handle> <size>
	kindCacheNodes   = "CACHE_NODES"   // <handle> <size> <path|data|czxid|mzxid,... or ->
	kindCacheHas     = "CACHE_HAS"     // <handle> <path>
)

// TestCuratorCacheAcrossLanguages puts Curator's CuratorCache and two of
// zkcurator's, one under a recursive watch and one under one-shot watches,
// on one tree of 55 nodes at three levels that a Go writer and Curator
// built together, so that each side's cache loads nodes the other side
// wrote. Then both writers change it at once (creates with parents, data
// changes of the other's nodes and of one node by both, deletes of leaves
// and of the other's subtrees), and in turn (a node or subtree one side
// deletes, the other creates again with the same data; a node deleted and
// created again at once by each side). Once the three caches hold a
// marker node written last, each holds exactly the server's tree: the same
// paths, data, creation and modification zxids (so a re-created node is
// held as the new node, not the old one with equal data).
func TestCuratorCacheAcrossLanguages(t *testing.T) {
	const (
		root   = "/interop/cache"
		marker = root + "/zz-quiet"
		wait   = 10 * time.Second // bounds each start, and the wait for the marker
	)
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	obs := newObserver(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	ctx := testContext(t, 60*time.Second)
	r := func(p string) string { return root + "/" + p }

	// The tree, before any cache: Curator's subtrees a, b and c, Go's d and
	// e, and Go's leaves beside Curator's in a.
	var javaBuilds, goBuilds []write
	javaBuilds = append(javaBuilds, create(root, payload(root, 0)))
	for _, s := range []string{"a", "b", "c"} {
		javaBuilds = append(javaBuilds, subtree(r(s), "j")...)
	}
	for _, s := range []string{"d", "e"} {
		goBuilds = append(goBuilds, subtree(r(s), "g")...)
	}
	for i := range 4 {
		goBuilds = append(goBuilds, create(r(fmt.Sprintf("a/g%d", i)), payload(r(fmt.Sprintf("a/g%d", i)), 0)))
	}
	writeInBoth(t, ctx, gc, java, nil, javaBuilds) // first: Go's leaves of a need a made by Curator
	writeInBoth(t, ctx, gc, java, goBuilds, nil)
	built := obs.tree(root)
	if len(built) != 55 {
		t.Fatalf("the tree holds %d nodes, want 55", len(built))
	}

	// The three caches, each checked against the server right after its load.
	recursive := startGoCache(t, ctx, newGoClient(t, srv.ConnectString()), root, cache.RecursiveWatch)
	defer recursive.Close()
	oneShot := startGoCache(t, ctx, newGoClient(t, srv.ConnectString()), root, cache.OneShotWatches, cache.WithOneShotWatches())
	defer oneShot.Close()
	if _, err := java.Do(ctx, kindCacheStarted, "cache.start", "c", root, millis(wait)); err != nil {
		t.Fatal(err)
	}
	caches := []struct {
		name string
		read func() tree
	}{
		{"zkcurator's CuratorCache (recursive watch)", func() tree { return goCacheTree(recursive) }},
		{"zkcurator's CuratorCache (one-shot watches)", func() tree { return goCacheTree(oneShot) }},
		{"Curator's CuratorCache", func() tree { return javaCacheTree(t, ctx, java, "c") }},
	}
	for _, c := range caches {
		if d := diffTrees(built, c.read()); d != "" {
			t.Fatalf("%s after its load, against the server:\n%s", c.name, d)
		}
	}

	// Both writers at once, never on a node the other's writes of this round
	// depend on.
	writeInBoth(t, ctx, gc, java,
		[]write{
			create(r("d/n0"), payload(r("d/n0"), 1)), create(r("d/n1"), payload(r("d/n1"), 1)),
			create(r("b/n0"), payload(r("b/n0"), 1)), create(r("b/n1"), payload(r("b/n1"), 1)),
			set(r("a/j1"), payload(r("a/j1"), 1)), set(r("b/j2"), payload(r("b/j2"), 1)),
			set(r("a/g0"), payload(r("a/g0"), 1)),
			del(r("e/g5")), del(r("b/j0")),
			create(r("g/x/y"), payload(r("g/x/y"), 1)), set(r("g/x"), payload(r("g/x"), 1)),
		},
		[]write{
			create(r("a/n0"), payload(r("a/n0"), 2)), create(r("a/n1"), payload(r("a/n1"), 2)),
			create(r("e/n0"), payload(r("e/n0"), 2)), create(r("e/n1"), payload(r("e/n1"), 2)),
			set(r("d/g1"), payload(r("d/g1"), 2)), set(r("e/g2"), payload(r("e/g2"), 2)),
			set(r("a/g0"), payload(r("a/g0"), 2)),
			del(r("c/j5")), del(r("e/g0")), del(r("a/j5")),
			create(r("f/x/y"), payload(r("f/x/y"), 2)), set(r("f/x"), payload(r("f/x"), 2)),
		})

	// In turn: what one side deletes the other creates again, as it was.
	writeInBoth(t, ctx, gc, java, []write{del(r("a/j2"))}, nil)
	writeInBoth(t, ctx, gc, java, nil, []write{create(r("a/j2"), payload(r("a/j2"), 0)), del(r("d"))})
	writeInBoth(t, ctx, gc, java,
		[]write{create(r("d/g1"), payload(r("d/g1"), 0)), del(r("e/g3")), create(r("e/g3"), payload(r("e/g3"), 0))},
		[]write{del(r("c/j3")), create(r("c/j3"), payload(r("c/j3"), 0))})
	writeInBoth(t, ctx, gc, java, []write{create(marker, []byte("quiet"))}, nil)

	quiet, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	awaitJava, err := java.Send("cache.await", "c", marker, millis(wait))
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range []*cache.CuratorCache{recursive, oneShot} {
		waitFor(t, quiet, "zkcurator's caches to hold "+marker, func() (bool, error) {
			_, ok := cc.Get(marker)
			return ok, nil
		})
	}
	if _, err := awaitJava.Await(quiet, kindCacheHas); err != nil {
		t.Fatal(err)
	}
	want := obs.tree(root)
	for _, c := range caches {
		if d := diffTrees(want, c.read()); d != "" {
			t.Errorf("%s once it held %s, against the server:\n%s", c.name, marker, d)
		}
	}
	if _, err := java.Do(ctx, KindOK, "cache.close", "c"); err != nil {
		t.Error(err)
	}
	t.Logf("the three caches agree with the server on %d nodes (%d before the writes)", len(want), len(built))
}

// write is one change a writer makes: a create (parents as needed), a data
// change without a version, or a delete (children too).
type write struct {
	verb, path string
	data       []byte
}

func create(p string, data []byte) write { return write{verb: "create", path: p, data: data} }
func set(p string, data []byte) write    { return write{verb: "set", path: p, data: data} }
func del(p string) write                 { return write{verb: "delete", path: p} }

// subtree is the writes that make a node at p, its children <prefix>0..5
// and three grandchildren under <prefix>0: ten nodes.
func subtree(p, prefix string) []write {
	ws := []write{create(p, payload(p, 0))}
	for i := range 6 {
		c := fmt.Sprintf("%s/%s%d", p, prefix, i)
		ws = append(ws, create(c, payload(c, 0)))
	}
	for i := range 3 {
		c := fmt.Sprintf("%s/%s0/k%d", p, prefix, i)
		ws = append(ws, create(c, payload(c, 0)))
	}
	return ws
}

// payload is the data of path p in round n: empty, bytes no text encoding
// survives (NUL, 0xff, newline, space), or text.
func payload(p string, n int) []byte {
	switch (len(p) + n) % 3 {
	case 0:
		return []byte{}
	case 1:
		return append([]byte{0, 0xff, '\n', ' ', byte(n)}, p...)
	}
	return []byte(fmt.Sprintf("%s#%d", p, n))
}

// writeInBoth sends javaWrites to the helper, which makes them in order
// through Curator, makes goWrites in order meanwhile, and returns once both
// are done; a failed write fails the test.
func writeInBoth(t *testing.T, ctx context.Context, c *framework.Client, h *Helper, goWrites, javaWrites []write) {
	t.Helper()
	var calls []*Call
	for _, w := range javaWrites {
		args := []string{w.path}
		if w.verb != "delete" {
			args = append(args, encodeData(w.data))
		}
		call, err := h.Send("cache."+w.verb, args...)
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call)
	}
	for _, w := range goWrites {
		var err error
		switch w.verb {
		case "create":
			_, err = c.Create(ctx, w.path, w.data, framework.CreatingParentsIfNeeded())
		case "set":
			_, err = c.SetData(ctx, w.path, w.data, -1)
		case "delete":
			err = c.Delete(ctx, w.path, framework.DeletingChildrenIfNeeded())
		}
		if err != nil {
			t.Fatalf("Go writer: %s %s: %v", w.verb, w.path, err)
		}
	}
	for _, call := range calls {
		if _, err := call.Await(ctx, KindOK); err != nil {
			t.Fatal(err)
		}
	}
}

// startGoCache starts a CuratorCache of root on c and checks it follows the
// tree in mode.
func startGoCache(t *testing.T, ctx context.Context, c *framework.Client, root string, mode cache.WatchMode, opts ...cache.Option) *cache.CuratorCache {
	t.Helper()
	cc, err := cache.NewCuratorCache(c, root, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := cc.Start(ctx); err != nil {
		cc.Close()
		t.Fatal(err)
	}
	if cc.Mode() != mode {
		cc.Close()
		t.Fatalf("the cache follows %s in mode %v, want %v", root, cc.Mode(), mode)
	}
	return cc
}

// tree is what a cache or the server holds, by path: what the three caches
// must agree on.
type tree map[string]treeNode

type treeNode struct {
	data         string // base64
	czxid, mzxid int64
}

func (n treeNode) String() string {
	return fmt.Sprintf("data %q czxid %d mzxid %d", n.data, n.czxid, n.mzxid)
}

func encodeData(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return base64.StdEncoding.EncodeToString(b)
}

func goCacheTree(cc *cache.CuratorCache) tree {
	out := tree{}
	for _, n := range cc.Snapshot() {
		out[n.Path] = treeNode{data: base64.StdEncoding.EncodeToString(n.Data), czxid: n.Stat.Czxid, mzxid: n.Stat.Mzxid}
	}
	return out
}

// javaCacheTree reads what the helper's cache handle holds.
func javaCacheTree(t *testing.T, ctx context.Context, h *Helper, handle string) tree {
	t.Helper()
	e, err := h.Do(ctx, kindCacheNodes, "cache.dump", handle)
	if err != nil {
		t.Fatal(err)
	}
	out := tree{}
	if e.Field(2) == "-" {
		return out
	}
	for _, entry := range strings.Split(e.Field(2), ",") {
		f := strings.Split(entry, "|")
		if len(f) != 4 {
			t.Fatalf("bad entry %q in %v", entry, e)
		}
		czxid, err1 := strconv.ParseInt(f[2], 10, 64)
		mzxid, err2 := strconv.ParseInt(f[3], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("bad entry %q: %v", entry, err)
		}
		out[f[0]] = treeNode{data: f[1], czxid: czxid, mzxid: mzxid}
	}
	if strconv.Itoa(len(out)) != e.Field(1) {
		t.Fatalf("%v: %d entries, size %s", e, len(out), e.Field(1))
	}
	return out
}

// tree reads the subtree at root from the server, which must not change
// meanwhile.
func (o *observer) tree(root string) tree {
	o.t.Helper()
	out := tree{}
	for todo := []string{root}; len(todo) > 0; {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		data, st, err := o.conn.Get(p)
		o.must(err, "get %s", p)
		out[p] = treeNode{data: base64.StdEncoding.EncodeToString(data), czxid: st.Czxid, mzxid: st.Mzxid}
		kids, _, err := o.conn.Children(p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		o.must(err, "children of %s", p)
		for _, k := range kids {
			todo = append(todo, strings.TrimSuffix(p, "/")+"/"+k)
		}
	}
	return out
}

// diffTrees describes how got differs from want, at most 20 lines; "" when
// they are equal.
func diffTrees(want, got tree) string {
	var lines []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			lines = append(lines, "missing "+p+" ("+w.String()+")")
		} else if g != w {
			lines = append(lines, fmt.Sprintf("%s: holds %v, the server %v", p, g, w))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			lines = append(lines, "extra "+p+" ("+g.String()+")")
		}
	}
	slices.Sort(lines)
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("... and %d more", len(lines)-20))
	}
	return strings.Join(lines, "\n")
}
