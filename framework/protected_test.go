package framework_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// protectedChildren returns the protected children of parent, seen by c.
func protectedChildren(t *testing.T, c *framework.Client, parent string) []string {
	t.Helper()
	children, _, err := c.Children(testCtx(t), parent)
	if err != nil {
		t.Fatalf("Children(%q): %v", parent, err)
	}
	var out []string
	for _, ch := range children {
		if protection.IsProtected(ch) {
			out = append(out, ch)
		}
	}
	return out
}

// The reply to the first create is lost; the retry finds the node instead of making a
// second one (Curator's protected mode).
func TestProtectedCreateSurvivesLostReply(t *testing.T) {
	for _, mode := range []framework.CreateMode{framework.EphemeralSequential, framework.Persistent} {
		t.Run(mode.String(), func(t *testing.T) {
			srv := sharedServer(t)
			p := zktest.StartProxy(t, srv.ConnectString())
			c := newClient(t, p.Addr()+","+p.Addr())
			observer := newClient(t, srv.ConnectString())
			ctx := testCtx(t)
			parent := testRoot(t)
			if _, err := observer.Create(ctx, parent, nil); err != nil {
				t.Fatal(err)
			}

			p.LoseNextReply(zktest.OpCreate, zktest.OpCreate2)
			got, err := c.Create(ctx, parent+"/node-", []byte("x"), framework.WithMode(mode), framework.WithProtection())
			if err != nil {
				t.Fatalf("protected Create: %v", err)
			}
			if n := p.LostReplies(); n != 1 {
				t.Fatalf("LostReplies = %d, want 1", n)
			}
			nodes := protectedChildren(t, observer, parent)
			if len(nodes) != 1 {
				t.Fatalf("protected children = %v, want exactly one", nodes)
			}
			if got != parent+"/"+nodes[0] {
				t.Fatalf("Create returned %q, the node is %q", got, nodes[0])
			}
			if !strings.HasSuffix(protection.Strip(nodes[0]), "node-"+map[bool]string{true: nodes[0][len(nodes[0])-10:], false: ""}[mode.IsSequential()]) {
				t.Fatalf("node name %q does not keep the requested name", nodes[0])
			}
			if p.RequestCount(zktest.OpCreate) != 1 {
				t.Fatalf("%d create requests, want 1 (the retry must find the node)", p.RequestCount(zktest.OpCreate))
			}
		})
	}
}

// Without protection the same lost reply makes the retry fail with NodeExists, which
// shows the fault is real.
func TestUnprotectedCreateLostReply(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr()+","+p.Addr())
	ctx := testCtx(t)
	p.LoseNextReply(zktest.OpCreate)
	_, err := c.Create(ctx, testRoot(t), nil)
	if !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("unprotected Create after a lost reply: %v, want zk.ErrNodeExists", err)
	}
}

// A protected create that finally fails leaves no node once things heal, whether the
// retries ran out or the caller's ctx ended with the request under way.
func TestFailedProtectedCreateLeavesNoNode(t *testing.T) {
	srv := sharedServer(t)
	observer := newClient(t, srv.ConnectString())
	ctx := testCtx(t)

	t.Run("RetriesExhausted", func(t *testing.T) {
		p := zktest.StartProxy(t, srv.ConnectString())
		c, err := framework.NewClient(p.Addr()+","+p.Addr(), retry.NTimes{N: 0},
			framework.WithSessionTimeout(testSessionTimeout))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		parent := testRoot(t)
		if _, err := observer.Create(ctx, parent, nil); err != nil {
			t.Fatal(err)
		}
		p.LoseNextReply(zktest.OpCreate)
		_, err = c.Create(ctx, parent+"/n", nil, framework.WithProtection())
		if !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("Create: %v, want a connection loss", err)
		}
		if p.LostReplies() != 1 {
			t.Fatal("the reply was not lost")
		}
		eventually(t, "the orphan to be deleted", func() bool {
			return len(protectedChildren(t, observer, parent)) == 0
		})
	})

	t.Run("CtxCancelled", func(t *testing.T) {
		p := zktest.StartProxy(t, srv.ConnectString())
		c := newClient(t, p.Addr(), framework.WithSessionTimeout(4*time.Second))
		parent := testRoot(t)
		if _, err := observer.Create(ctx, parent, nil); err != nil {
			t.Fatal(err)
		}
		p.Pause()
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err := c.Create(short, parent+"/n", nil, framework.WithProtection())
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Create: %v, want context.DeadlineExceeded", err)
		}
		_, _, created, err := observer.ChildrenW(ctx, parent)
		if err != nil {
			t.Fatal(err)
		}
		p.Resume() // the held create now reaches the server and succeeds
		select {
		case ev := <-created:
			if ev.Type != zk.EventNodeChildrenChanged {
				t.Fatalf("watch event %+v, want the late node's creation", ev)
			}
		case <-time.After(testWait):
			t.Fatal("the held create never reached the server")
		}
		eventually(t, "the late node to be deleted", func() bool {
			return len(protectedChildren(t, observer, parent)) == 0
		})
	})
}

// A protected ephemeral node left by an older session of ours is not returned: it is
// deleted and a new one is made on the current session.
func TestProtectedIDReplacesOldSessionNode(t *testing.T) {
	srv := sharedServer(t)
	ctx := testCtx(t)
	parent := testRoot(t)
	id := protection.NewID()

	old := newClient(t, srv.ConnectString())
	first, err := old.Create(ctx, parent+"/n-", nil, framework.WithMode(framework.EphemeralSequential),
		framework.CreatingParentsIfNeeded(), framework.WithProtectedID(id))
	if err != nil {
		t.Fatal(err)
	}
	again, err := old.Create(ctx, parent+"/n-", nil, framework.WithMode(framework.EphemeralSequential), framework.WithProtectedID(id))
	if err != nil || again != first {
		t.Fatalf("same session, same id: %q, %v; want %q", again, err, first)
	}

	c := newClient(t, srv.ConnectString())
	second, err := c.Create(ctx, parent+"/n-", nil, framework.WithMode(framework.EphemeralSequential), framework.WithProtectedID(id))
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Fatalf("the node of another session (%q) was returned", first)
	}
	st, err := c.Exists(ctx, second)
	if err != nil || st == nil || st.EphemeralOwner != c.SessionID() {
		t.Fatalf("new node %q: %+v, %v", second, st, err)
	}
	if st, err := c.Exists(ctx, first); err != nil || st != nil {
		t.Fatalf("old node %q still exists: %+v, %v", first, st, err)
	}
}

func TestCreateOptionValidation(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr())
	ctx := testCtx(t)
	p.ResetCounts()
	for _, tc := range []struct {
		name string
		opts []framework.CreateOption
		want string
	}{
		{"ttl without mode", []framework.CreateOption{framework.WithTTL(time.Second)}, "needs mode"},
		{"mode without ttl", []framework.CreateOption{framework.WithMode(framework.PersistentWithTTL)}, "needs WithTTL"},
		{"zero ttl", []framework.CreateOption{framework.WithMode(framework.PersistentWithTTL), framework.WithTTL(0)}, "outside"},
		{"huge ttl", []framework.CreateOption{framework.WithMode(framework.PersistentWithTTL), framework.WithTTL(1 << 62)}, "outside"},
		{"bad mode", []framework.CreateOption{framework.WithMode(framework.CreateMode(42))}, "unknown create mode"},
		{"bad protected id", []framework.CreateOption{framework.WithProtectedID("nope")}, `"nope"`},
	} {
		_, err := c.Create(ctx, "/x", nil, tc.opts...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if n := totalRequests(p); n != 0 {
		t.Fatalf("%d requests sent for invalid creates", n)
	}
}
