package cache_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// recorder is a Listener that writes each call as a line: "NODE_CREATED
// /p=data", "NODE_CHANGED /p=old->new", "NODE_DELETED /p=data",
// "INITIALIZED".
type recorder chan string

func newRecorder() recorder { return make(recorder, 10000) }

// startRecorded starts a CuratorCache of path with a recorder listening from
// the start; the cache closes at the end of the test.
func startRecorded(t *testing.T, c *framework.Client, path string, opts ...cache.Option) (*cache.CuratorCache, recorder) {
	t.Helper()
	cc, err := cache.NewCuratorCache(c, path, opts...)
	must(t, err)
	t.Cleanup(func() { cc.Close() })
	r := newRecorder()
	cc.Listen(r)
	must(t, cc.Start(testCtx(t)))
	return cc, r
}

func (r recorder) Event(t cache.ChangeType, old, node cache.Node) {
	switch t {
	case cache.NodeCreated:
		r <- fmt.Sprintf("%v %s=%s", t, node.Path, node.Data)
	case cache.NodeChanged:
		r <- fmt.Sprintf("%v %s=%s->%s", t, node.Path, old.Data, node.Data)
	case cache.NodeDeleted:
		r <- fmt.Sprintf("%v %s=%s", t, old.Path, old.Data)
	}
}

func (r recorder) Initialized() { r <- "INITIALIZED" }

// expectLines reads the next lines of r and checks them in order.
func expectLines(t *testing.T, r <-chan string, want ...string) {
	t.Helper()
	for _, w := range want {
		select {
		case got := <-r:
			if got != w {
				t.Fatalf("listener told %q, want %q", got, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("listener not told %q within 10 s", w)
		}
	}
}

func TestCuratorCacheReportsCreatesChangesAndDeletes(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	for _, p := range []string{"/cc/a/x", "/cc/b"} {
		_, err := c.Create(ctx, p, []byte("v0"), framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	cc, r := startRecorded(t, c, "/cc")
	expectLines(t, r, "NODE_CREATED /cc=", "NODE_CREATED /cc/a=", "NODE_CREATED /cc/a/x=v0", "NODE_CREATED /cc/b=v0", "INITIALIZED")
	if n, ok := cc.Get("/cc/a/x"); !ok || string(n.Data) != "v0" || cc.Size() != 4 {
		t.Fatalf("Get(/cc/a/x) = %v %q, %v; Size %d", n.Path, n.Data, ok, cc.Size())
	}

	_, err := c.SetData(ctx, "/cc/a/x", []byte("v1"), -1)
	must(t, err)
	expectLines(t, r, "NODE_CHANGED /cc/a/x=v0->v1")
	// The same data again is a new version: a change.
	_, err = c.SetData(ctx, "/cc/a/x", []byte("v1"), -1)
	must(t, err)
	expectLines(t, r, "NODE_CHANGED /cc/a/x=v1->v1")
	// Deleted and created again with the same data and version: a delete
	// and a create, never a change.
	must(t, c.Delete(ctx, "/cc/b"))
	_, err = c.Create(ctx, "/cc/b", []byte("v0"))
	must(t, err)
	expectLines(t, r, "NODE_DELETED /cc/b=v0", "NODE_CREATED /cc/b=v0")
	must(t, c.Delete(ctx, "/cc/a", framework.DeletingChildrenIfNeeded()))
	expectLines(t, r, "NODE_DELETED /cc/a/x=v1", "NODE_DELETED /cc/a=")
	_, err = c.Create(ctx, "/cc/c", []byte("c"))
	must(t, err)
	expectLines(t, r, "NODE_CREATED /cc/c=c") // and nothing before it
}

func TestCuratorCacheSingleNodeAndClose(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	_, err := c.Create(ctx, "/one/child", []byte("c"), framework.CreatingParentsIfNeeded())
	must(t, err)

	single, r := startRecorded(t, c, "/one", cache.WithSingleNodeCache())
	expectLines(t, r, "NODE_CREATED /one=", "INITIALIZED")
	_, err = c.Create(ctx, "/one/other", nil)
	must(t, err)
	_, err = c.SetData(ctx, "/one", []byte("top"), -1)
	must(t, err)
	expectLines(t, r, "NODE_CHANGED /one=->top") // nothing of /one/other
	if single.Size() != 1 {
		t.Fatalf("a single node cache holds %v", single.Snapshot())
	}

	// Close empties a cache by default, and keeps it with WithDoNotClearOnClose.
	kept, err := cache.NewCuratorCache(c, "/one", cache.WithDoNotClearOnClose())
	must(t, err)
	must(t, kept.Start(ctx))
	must(t, single.Close())
	must(t, kept.Close())
	must(t, kept.Close())
	if _, ok := single.Get("/one"); ok || single.Size() != 0 {
		t.Fatalf("after Close the cache still holds %v", single.Snapshot())
	}
	if n, ok := kept.Get("/one"); !ok || string(n.Data) != "top" || kept.Size() != 3 {
		t.Fatalf("WithDoNotClearOnClose: after Close Get(/one) = %q, %v; holds %v", n.Data, ok, kept.Snapshot())
	}
	if err := kept.Start(ctx); !errors.Is(err, cache.ErrClosed) {
		t.Fatalf("Start after Close: %v, want ErrClosed", err)
	}

	// A listener added to a closed cache is never called: a change that an
	// open cache reports is not reported to it. A nil listener adds nothing.
	late := newRecorder()
	stop := kept.Listen(late)
	kept.Listen(nil)()
	witness, w := startRecorded(t, c, "/one", cache.WithSingleNodeCache())
	expectLines(t, w, "NODE_CREATED /one=top", "INITIALIZED")
	_, err = c.SetData(ctx, "/one", []byte("after"), -1)
	must(t, err)
	expectLines(t, w, "NODE_CHANGED /one=top->after")
	must(t, witness.Close()) // no call of its listener is under way
	if len(late) != 0 {
		t.Fatalf("a listener added after Close was told %q", <-late)
	}
	stop()
	stop()
}

func TestCuratorCacheBadArguments(t *testing.T) {
	c, err := framework.NewClient("127.0.0.1:1", retry.NTimes{N: 1}) // never started
	must(t, err)
	for name, make := range map[string]func() error{
		"nil client": func() error { _, err := cache.NewCuratorCache(nil, "/x"); return err },
		"bad path":   func() error { _, err := cache.NewCuratorCache(c, "x"); return err },
		"single node with depth": func() error {
			_, err := cache.NewCuratorCache(c, "/x", cache.WithSingleNodeCache(), cache.WithMaxDepth(2))
			return err
		},
		"single node on a tree cache": func() error { _, err := cache.NewTreeCache(c, "/x", cache.WithSingleNodeCache()); return err },
		"keep on close on a node cache": func() error {
			_, err := cache.NewNodeCache(c, "/x", cache.WithDoNotClearOnClose())
			return err
		},
		"one-shot watches on a tree cache": func() error {
			_, err := cache.NewTreeCache(c, "/x", cache.WithOneShotWatches())
			return err
		},
		"nil option": func() error { _, err := cache.NewTreeCache(c, "/x", cache.WithoutData(), nil); return err },
		"nil callback": func() error {
			_, err := cache.NewListener().ForCreates(func(cache.Node) {}).ForDeletes(nil).Build()
			return err
		},
	} {
		if err := make(); !errors.Is(err, cache.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	_, err = cache.NewListener().ForChanges(nil).Build()
	if err == nil || !strings.Contains(err.Error(), "ForChanges") {
		t.Errorf("a nil callback's error does not name it: %v", err)
	}
}

// Every For method of the builder gets what Curator's does, and the bridges
// speak the older caches' events.
func TestCuratorCacheListenerBuilder(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := testCtx(t)
	_, err := c.Create(ctx, "/lb/kids/a", []byte("a0"), framework.CreatingParentsIfNeeded())
	must(t, err)
	_, err = c.Create(ctx, "/lb/kids/a/deep", []byte("d0"))
	must(t, err)

	lines := make(chan string, 1000)
	say := func(format string, args ...any) { lines <- fmt.Sprintf(format, args...) }
	l, err := cache.NewListener().
		ForCreates(func(n cache.Node) { say("creates %s", n.Path) }).
		ForChanges(func(old, n cache.Node) { say("changes %s %s->%s", n.Path, old.Data, n.Data) }).
		ForCreatesAndChanges(func(old, n cache.Node) { say("creates+changes %s %q->%s", n.Path, old.Path, n.Data) }).
		ForDeletes(func(old cache.Node) { say("deletes %s %s", old.Path, old.Data) }).
		ForInitialized(func() { say("initialized") }).
		ForPathChildrenCache("/lb/kids", func(e cache.Event) { say("children %v", e) }).
		ForTreeCache(func(e cache.Event) {
			if e.Type == cache.NodeUpdated {
				say("tree %v old %s", e, e.Old.Data)
				return
			}
			say("tree %v", e)
		}).
		ForNodeCache(func() { say("node") }).
		Build()
	must(t, err)
	late, err := cache.NewListener().AfterInitialized().ForCreates(func(n cache.Node) { say("late %s", n.Path) }).Build()
	must(t, err)

	cc, err := cache.NewCuratorCache(c, "/lb/kids")
	must(t, err)
	defer cc.Close()
	cc.Listen(l)
	removeLate := cc.Listen(late)
	must(t, cc.Start(ctx))
	created := func(p, data string) []string {
		return []string{"creates " + p, `creates+changes ` + p + ` ""->` + data, "tree NODE_ADDED " + p + " (version 0)", "node"}
	}
	// Each listener part is called in the order added; the bridge for the
	// children of /lb/kids says nothing of /lb/kids itself or of /lb/kids/a/deep.
	want := created("/lb/kids", "")
	a := created("/lb/kids/a", "a0")
	want = append(want, a[0], a[1], "children NODE_ADDED /lb/kids/a (version 0)", a[2], a[3])
	want = append(want, created("/lb/kids/a/deep", "d0")...)
	want = append(want, "initialized", "children INITIALIZED", "tree INITIALIZED")
	expectLines(t, lines, want...)

	_, err = c.SetData(ctx, "/lb/kids/a", []byte("a1"), -1)
	must(t, err)
	expectLines(t, lines,
		"changes /lb/kids/a a0->a1", `creates+changes /lb/kids/a "/lb/kids/a"->a1`,
		"children NODE_UPDATED /lb/kids/a (version 1)", "tree NODE_UPDATED /lb/kids/a (version 1) old a0", "node")
	_, err = c.Create(ctx, "/lb/kids/b", []byte("b0"))
	must(t, err)
	b := created("/lb/kids/b", "b0")
	expectLines(t, lines, b[0], b[1], "children NODE_ADDED /lb/kids/b (version 0)", b[2], b[3], "late /lb/kids/b")
	removeLate()
	must(t, c.Delete(ctx, "/lb/kids/a/deep"))
	expectLines(t, lines, "deletes /lb/kids/a/deep d0", "tree NODE_REMOVED /lb/kids/a/deep (version 0)", "node")
	_, err = c.Create(ctx, "/lb/kids/c", nil)
	must(t, err)
	c0 := created("/lb/kids/c", "")
	// The removed listener says nothing of /lb/kids/c.
	expectLines(t, lines, c0[0], c0[1], "children NODE_ADDED /lb/kids/c (version 0)", c0[2], c0[3])
	select {
	case extra := <-lines:
		t.Fatalf("a listener told %q after the last change was reported", extra)
	default:
	}
}

// A cache on a Compressed view holds the data decompressed (Curator's
// COMPRESSED_DATA).
func TestCuratorCacheOnACompressedView(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	errs := make(chan error, 8)
	defer c.ListenErrors(func(err error) { errs <- err })()
	ctx := testCtx(t)
	_, err := c.Create(ctx, "/z", []byte("packed"), framework.Compressed())
	must(t, err)
	_, r := startRecorded(t, c.Compressed(), "/z")
	expectLines(t, r, "NODE_CREATED /z=packed", "INITIALIZED")
	_, err = c.Compressed().SetData(ctx, "/z", []byte("again"), -1)
	must(t, err)
	expectLines(t, r, "NODE_CHANGED /z=packed->again")

	// A node whose data does not decompress is held without data, and the
	// cache goes on following the rest.
	_, err = c.Create(ctx, "/z/plain", []byte("plain text, not gzip"))
	must(t, err)
	expectLines(t, r, "NODE_CREATED /z/plain=")
	select { // and reported, as no call returns it
	case err := <-errs:
		if !errors.Is(err, framework.ErrDecompression) || !strings.Contains(err.Error(), "/z/plain") {
			t.Fatalf("reported %v; want ErrDecompression naming /z/plain", err)
		}
	case <-ctx.Done():
		t.Fatal("the node that does not decompress was not reported")
	}
	_, err = c.Compressed().SetData(ctx, "/z", []byte("later"), -1)
	must(t, err)
	expectLines(t, r, "NODE_CHANGED /z=again->later")
}
