package nodes_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestNewPersistentTTLNodeRejectsBadArguments(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	cases := []struct {
		name string
		ttl  time.Duration
		opts []nodes.PersistentTTLNodeOption
		want string
	}{
		{"zero ttl", 0, nil, "0s"},
		{"child with a slash", time.Second, []nodes.PersistentTTLNodeOption{nodes.WithChildNodeName("a/b")}, `"a/b"`},
		{"zero factor", time.Second, []nodes.PersistentTTLNodeOption{nodes.WithTouchScheduleFactor(0)}, "factor 0"},
		{"interval below 1ms", time.Millisecond, []nodes.PersistentTTLNodeOption{nodes.WithTouchScheduleFactor(2)}, "factor 2"},
		{"nil option", time.Second, []nodes.PersistentTTLNodeOption{nil}, `option 0 of the TTL node at "/ttl" is nil`},
	}
	for _, tc := range cases {
		_, err := nodes.NewPersistentTTLNode(c, "/ttl", tc.ttl, nil, tc.opts...)
		if !errors.Is(err, nodes.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrInvalidArgument naming %s", tc.name, err, tc.want)
		}
	}
}

// The container stands with its touched TTL child, both are made again
// when deleted, and Close deletes both.
func TestPersistentTTLNodeKeepsContainerAndChild(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes())
	c := zkclient.New(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	n, err := nodes.NewPersistentTTLNode(c, "/ttl/a", 400*time.Millisecond, []byte("d"))
	zktest.Must(t, err)
	zktest.Must(t, n.Start())
	defer n.Close(ctx)
	zktest.Must(t, n.WaitForInitialCreate(ctx))
	if n.Path() != "/ttl/a" {
		t.Fatalf("Path() %q", n.Path())
	}
	stat, err := admin.Exists(ctx, "/ttl/a/touch")
	zktest.Must(t, err)
	if stat == nil {
		t.Fatal("no touched child")
	}
	zktest.Must(t, admin.Delete(ctx, "/ttl/a", framework.DeletingChildrenIfNeeded()))
	zktest.Eventually(t, 20*time.Second, "the container and its child are back", func() bool {
		st, err := admin.Exists(ctx, "/ttl/a/touch")
		return err == nil && st != nil
	})
	data, _, err := admin.GetData(ctx, "/ttl/a")
	zktest.Must(t, err)
	if string(data) != "d" {
		t.Fatalf("container data %q", data)
	}
	closeLeavesNoNode(t, admin, n.Close, "/ttl/a")
}

func TestPersistentTTLNodeWithoutServerSupportFailsClearly(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	n, err := nodes.NewPersistentTTLNode(c, "/nottl/a", time.Second, nil)
	zktest.Must(t, err)
	zktest.Must(t, n.Start())
	defer n.Close(ctx)
	if err := n.WaitForInitialCreate(ctx); !errors.Is(err, framework.ErrTTLNotEnabled) {
		t.Fatalf("WaitForInitialCreate on a server without TTL nodes: %v", err)
	}

	p, err := nodes.NewPersistentNode(c, "/nottl/p", framework.PersistentWithTTL, nil, nodes.WithTTL(time.Second))
	zktest.Must(t, err)
	zktest.Must(t, p.Start())
	defer p.Close(ctx)
	if err := p.WaitForInitialCreate(ctx); !errors.Is(err, framework.ErrTTLNotEnabled) {
		t.Fatalf("TTL PersistentNode on a server without TTL nodes: %v", err)
	}
}

// A second Start is refused, and so is a Start after Close; a Start that a
// closed client refuses leaves the node as it was, so that it is refused
// for the same reason again.
func TestPersistentTTLNodeLifecycleErrors(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	n, err := nodes.NewPersistentTTLNode(c, "/ttl-life/a", time.Second, nil)
	zktest.Must(t, err)
	zktest.Must(t, n.Start())
	if err := n.Start(); !errors.Is(err, nodes.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v", err)
	}
	zktest.Must(t, n.Close(ctx))
	zktest.Must(t, n.Close(ctx))
	if err := n.Start(); !errors.Is(err, nodes.ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}

	closedClient := zkclient.New(t, srv.ConnectString())
	m, err := nodes.NewPersistentTTLNode(closedClient, "/ttl-life/b", time.Second, nil)
	zktest.Must(t, err)
	zktest.Must(t, closedClient.Close())
	for i := range 2 {
		if err := m.Start(); !errors.Is(err, framework.ErrClosed) {
			t.Fatalf("Start %d on a closed client: %v", i+1, err)
		}
	}
	zktest.Must(t, m.Close(ctx))
}

// A PersistentNode in a TTL mode is made (a server without TTL nodes
// refuses it, see above) and made again at its name.
func TestPersistentNodeTTLModes(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes())
	c := zkclient.New(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	for _, mode := range []framework.CreateMode{framework.PersistentWithTTL, framework.PersistentSequentialWithTTL} {
		parent := "/ttlmode/" + mode.String()
		n := keptNode(t, c, parent+"/n-", mode, nil, nodes.WithTTL(time.Minute), nodes.WithProtection())
		first := awaitStanding(t, admin, c, n, parent, false)
		zktest.Must(t, admin.Delete(zktest.TestContext(t), first))
		if again := awaitStanding(t, admin, c, n, parent, false); again != first {
			t.Fatalf("made again at %s, first at %s", again, first)
		}
	}
}

// The former names still compile and are the same as the new ones (their
// use here is the point of the test).
func TestPersistentTtlNodeDeprecatedNamesStillWork(t *testing.T) {
	var opts []nodes.PersistentTtlNodeOption = []nodes.PersistentTTLNodeOption{nodes.WithChildNodeName("t")}
	var n *nodes.PersistentTtlNode
	n, err := nodes.NewPersistentTtlNode(nil, "/ttl", time.Second, nil, opts...)
	if n != nil || !errors.Is(err, nodes.ErrInvalidArgument) || !strings.Contains(err.Error(), "nil client") {
		t.Fatalf("NewPersistentTtlNode(nil, ...) = %v, %v; want NewPersistentTTLNode's ErrInvalidArgument naming the nil client", n, err)
	}
}
