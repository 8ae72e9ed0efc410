package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// startWatch runs 'zkcurator watch' with args against connect and returns
// once its watch is set (its --verbose log says so). Its session timeout
// is long enough that a loaded machine does not lose its connection: a
// Reset line would break the sequences the tests expect.
func startWatch(t *testing.T, connect string, args ...string) *proc {
	t.Helper()
	conn := append(connArgs(connect), "--session-timeout", "20s", "--connect-timeout", "15s")
	p := start(t, append(append([]string{"watch", "--verbose"}, conn...), args...)...)
	eventually(t, "zkcurator watch to set its watch", func() bool {
		if p.exited() {
			t.Fatalf("zkcurator watch exited with %d before it watched: %s", p.code, p.stderr.String())
		}
		return strings.Contains(p.stderr.String(), "\twatching\t")
	})
	return p
}

// lines returns the lines p printed so far, each checked to be one JSON
// object.
func (p *proc) lines(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(p.stdout.String(), "\n") {
		if l == "" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("zkcurator watch printed %q, not a JSON object: %v", l, err)
		}
		out = append(out, l)
	}
	return out
}

// awaitLines waits until p has printed at least n lines and returns them.
func (p *proc) awaitLines(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	eventually(t, fmt.Sprintf("%d lines from zkcurator watch", n), func() bool {
		got = p.lines(t)
		return len(got) >= n
	})
	return got
}

// removeAfter deletes path and everything below it when t ends.
func removeAfter(t *testing.T, c *framework.Client, path string) {
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), path, framework.DeletingChildrenIfNeeded(), framework.Quietly())
	})
}

// event is the line watch prints for an event.
func event(typ, path string) string {
	return fmt.Sprintf(`{"type":%q,"path":%q}`, typ, path)
}

// TestWatchEventsInOrder: creations, data changes, children changes and
// deletions at PATH come as lines in the order they happened; without
// --recursive a grandchild's changes do not, with --recursive they do (and
// no NodeChildrenChanged).
func TestWatchEventsInOrder(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	child, grandchild := path+"/c", path+"/c/g"
	single := startWatch(t, srv.ConnectString(), path)
	recursive := startWatch(t, srv.ConnectString(), "--recursive", path)

	c := testClient(t, srv.ConnectString())
	removeAfter(t, c, path)
	ctx := testCtx(t)
	for _, p := range []string{path, child, grandchild} {
		if _, err := c.Create(ctx, p, []byte("x"), framework.CreatingParentsIfNeeded()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SetData(ctx, grandchild, []byte("y"), -1); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, grandchild); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, child); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetData(ctx, path, []byte("z"), -1); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, path); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		p    *proc
		want []string
	}{
		{"PATH alone", single, []string{
			event("NodeCreated", path),
			event("NodeChildrenChanged", path),
			event("NodeChildrenChanged", path),
			event("NodeDataChanged", path),
			event("NodeDeleted", path),
		}},
		{"recursive", recursive, []string{
			event("NodeCreated", path),
			event("NodeCreated", child),
			event("NodeCreated", grandchild),
			event("NodeDataChanged", grandchild),
			event("NodeDeleted", grandchild),
			event("NodeDeleted", child),
			event("NodeDataChanged", path),
			event("NodeDeleted", path),
		}},
	} {
		// The last line is PATH's deletion: once it is printed, every
		// earlier event has been.
		got := tc.p.awaitLines(t, len(tc.want))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: printed\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestWatchData: with --data a creation and a data change carry the data
// read after them, as a string when UTF-8 (nothing escaped for HTML), else
// as base64; empty data is an empty string; a deletion carries none.
func TestWatchData(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	p := startWatch(t, srv.ConnectString(), "--data", path)
	c := testClient(t, srv.ConnectString())
	removeAfter(t, c, path)
	ctx := testCtx(t)
	steps := []struct {
		do   func() error
		want string
	}{
		{func() error {
			_, err := c.Create(ctx, path, []byte(`<a & "b">`), framework.CreatingParentsIfNeeded())
			return err
		},
			`{"type":"NodeCreated","path":"` + path + `","data":"<a & \"b\">"}`},
		{func() error { _, err := c.SetData(ctx, path, []byte{0xff, 0x00, 0x01}, -1); return err },
			`{"type":"NodeDataChanged","path":"` + path + `","dataBase64":"/wAB"}`},
		{func() error { _, err := c.SetData(ctx, path, nil, -1); return err },
			`{"type":"NodeDataChanged","path":"` + path + `","data":""}`},
		{func() error { return c.Delete(ctx, path) },
			event("NodeDeleted", path)},
	}
	// One step at a time: the data is read after the event, so a later
	// step could otherwise change what an earlier line carries.
	for i, s := range steps {
		if err := s.do(); err != nil {
			t.Fatal(err)
		}
		if got := p.awaitLines(t, i+1); got[i] != s.want {
			t.Fatalf("line %d is %s, want %s", i+1, got[i], s.want)
		}
	}
}

// TestWatchDataGoneOrRefused: with --data a line whose node was gone when
// its data was read, or whose data the node's ACL refused by then, carries
// no data; a refusal is warned of on stderr, naming the node.
func TestWatchDataGoneOrRefused(t *testing.T) {
	srv := sharedServer(t)
	proxy := zktest.StartProxy(t, srv.Addr())
	path := testPath(t)
	c := testClient(t, srv.ConnectString())
	removeAfter(t, c, path)
	ctx := testCtx(t)
	if err := c.CreateContainers(ctx, path); err != nil {
		t.Fatal(err)
	}
	node := path + "/n"
	t.Cleanup(func() { // before path's: it cannot be listed once unreadable
		_ = c.Delete(context.Background(), node, framework.Quietly())
	})
	p := startWatch(t, proxy.Addr(), "--data", node)
	// Created and deleted at once: gone by the time its data is read.
	if _, err := c.Transaction(ctx, &zk.CreateRequest{Path: node, Data: []byte("x")}, &zk.DeleteRequest{Path: node, Version: -1}); err != nil {
		t.Fatal(err)
	}
	p.awaitLines(t, 2)
	// Created readable (the server sends the event only to a watcher that
	// may read the node), then made unreadable before the watcher hears of it.
	proxy.Pause()
	if _, err := c.Create(ctx, node, []byte("secret")); err != nil {
		proxy.Resume()
		t.Fatal(err)
	}
	writeOnly := []zk.ACL{{Perms: zk.PermAll &^ zk.PermRead, Scheme: "world", ID: "anyone"}}
	_, err := c.SetACL(ctx, node, writeOnly, -1)
	proxy.Resume()
	if err != nil {
		t.Fatal(err)
	}
	got := p.awaitLines(t, 3)
	want := []string{event("NodeCreated", node), event("NodeDeleted", node), event("NodeCreated", node)}
	if !slices.Equal(got, want) {
		t.Errorf("printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	warning := "zkcurator: warning: watch: no data for the NodeCreated of " + node + ": ZooKeeper refused the read"
	if stderr := p.stderr.String(); strings.Count(stderr, "zkcurator: warning") != 1 || !strings.Contains(stderr, warning) {
		t.Errorf("stderr %q; want one warning %q", stderr, warning)
	}
}

// TestWatchNamespaceAndChroot: PATH and the printed paths are relative to
// the chroot of --connect and to --namespace.
func TestWatchNamespaceAndChroot(t *testing.T) {
	srv := sharedServer(t)
	chroot := testPath(t)
	c := testClient(t, srv.ConnectString())
	removeAfter(t, c, chroot)
	ctx := testCtx(t)
	if err := c.CreateContainers(ctx, chroot); err != nil {
		t.Fatal(err)
	}
	p := startWatch(t, srv.ConnectString()+chroot, "--namespace", "ns", "--recursive", "/app")
	if _, err := c.Create(ctx, chroot+"/ns/app/x", nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	got := p.awaitLines(t, 2)
	want := []string{event("NodeCreated", "/app"), event("NodeCreated", "/app/x")}
	if !slices.Equal(got, want) {
		t.Errorf("printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWatchReset: after its connection is lost, watch prints a Reset line
// for PATH, and events after it come as before.
func TestWatchReset(t *testing.T) {
	srv := sharedServer(t)
	proxy := zktest.StartProxy(t, srv.Addr())
	path := testPath(t)
	p := startWatch(t, proxy.Addr(), path)
	c := testClient(t, srv.ConnectString())
	removeAfter(t, c, path)
	ctx := testCtx(t)
	proxy.Sever()
	p.awaitLines(t, 1)
	if _, err := c.Create(ctx, path, nil, framework.CreatingParentsIfNeeded()); err != nil {
		t.Fatal(err)
	}
	got := p.awaitLines(t, 2)
	want := []string{event("Reset", path), event("NodeCreated", path)}
	if !slices.Equal(got, want) {
		t.Errorf("after a lost connection: printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWatchInterrupted: SIGINT and SIGTERM end watch at once with 128+N
// and one line on stderr saying so, its output whole JSON lines.
func TestWatchInterrupted(t *testing.T) {
	srv := sharedServer(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(signalName(sig), func(t *testing.T) {
			path := testPath(t)
			p := startWatch(t, srv.ConnectString(), path)
			c := testClient(t, srv.ConnectString())
			removeAfter(t, c, path)
			if _, err := c.Create(testCtx(t), path, nil, framework.CreatingParentsIfNeeded()); err != nil {
				t.Fatal(err)
			}
			p.awaitLines(t, 1)
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code := p.wait(t)
			stderr := p.stderr.String()
			if code != 128+int(sig) || !strings.Contains(stderr, "zkcurator: watch: interrupted by "+signalName(sig)) {
				t.Errorf("after %s: status %d, stderr %q; want %d", signalName(sig), code, stderr, 128+int(sig))
			}
			if got := p.lines(t); !slices.Equal(got, []string{event("NodeCreated", path)}) {
				t.Errorf("printed %q, want the one creation", got)
			}
		})
	}
}

// TestWatchBadInput: a bad PATH, or one with a bad flag, exits 64 naming
// it before any network call (the ensemble given is unreachable: a call
// would be 69).
func TestWatchBadInput(t *testing.T) {
	closed := closedAddr(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"relative path", []string{"app/x"}, `watch: bad PATH "app/x": a ZooKeeper path starts with /`},
		{"double slash", []string{"/app//x"}, `watch: bad PATH "/app//x": not a valid ZooKeeper path`},
		{"trailing slash", []string{"--recursive", "/app/"}, `watch: bad PATH "/app/"`},
		{"root", []string{"/"}, `watch: bad PATH "/": the root cannot be used`},
		{"missing path", nil, "watch: missing PATH"},
		{"two paths", []string{"/a", "/b"}, `watch: unexpected argument "/b"`},
		{"bad flag value", []string{"--data=maybe", "/a"}, `invalid boolean value "maybe" for -data`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"watch", "--connect", closed, "--connect-timeout", "100ms"}, tc.args...)
			code, stderr := runTool(t, args...)
			if code != exitUsage || len(toolLines(stderr)) != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("zkcurator %q: status %d, stderr %q; want %d and one line with %q", args, code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// TestWatchUnsupportedServer: a server without persistent watches is
// status 69 with a message that names the path and what is missing.
func TestWatchUnsupportedServer(t *testing.T) {
	err := addWatchError("zk1:2181", "/app", fmt.Errorf("framework: add watch /app: %w", framework.ErrPersistentWatchUnsupported))
	want := "watch /app: ZooKeeper at zk1:2181 does not support persistent watches (addWatch needs ZooKeeper 3.6 or later)"
	if exitCode(err) != exitUnavailable || err.Error() != want {
		t.Errorf("addWatchError = %d %q; want %d %q", exitCode(err), err, exitUnavailable, want)
	}
}
