package nodes_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestNewPersistentNodeRejectsBadArguments(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	cases := []struct {
		name string
		c    *framework.Client
		path string
		mode framework.CreateMode
		opts []nodes.PersistentNodeOption
		want string
	}{
		{"nil client", nil, "/a", framework.Ephemeral, nil, "nil client"},
		{"root", c, "/", framework.Ephemeral, nil, `"/"`},
		{"bad path", c, "a", framework.Ephemeral, nil, `"a"`},
		{"unknown mode", c, "/a", framework.CreateMode(42), nil, "42"},
		{"ttl mode without ttl", c, "/a", framework.PersistentWithTTL, nil, "WithTTL"},
		{"ttl without ttl mode", c, "/a", framework.Persistent, []nodes.PersistentNodeOption{nodes.WithTTL(time.Second)}, "1s"},
		{"ttl too small", c, "/a", framework.PersistentWithTTL, []nodes.PersistentNodeOption{nodes.WithTTL(time.Microsecond)}, "1µs"},
		{"nil option", c, "/a", framework.Ephemeral, []nodes.PersistentNodeOption{nodes.WithProtection(), nil}, `option 1 of the node at "/a" is nil`},
	}
	for _, tc := range cases {
		_, err := nodes.NewPersistentNode(tc.c, tc.path, tc.mode, nil, tc.opts...)
		if !errors.Is(err, nodes.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrInvalidArgument naming %s", tc.name, err, tc.want)
		}
	}
}

// In every mode, protected or not, the node is made with Curator's name,
// made again at the same name (once) when an operator deletes it, and keeps
// the data SetData gave it.
func TestPersistentNodeEveryModeComesBackAfterDelete(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	modes := []framework.CreateMode{framework.Ephemeral, framework.EphemeralSequential, framework.Persistent, framework.PersistentSequential}
	for _, mode := range modes {
		for _, protected := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/protected=%v", mode, protected), func(t *testing.T) {
				parent := fmt.Sprintf("/modes/%v-%v", mode, protected)
				var opts []nodes.PersistentNodeOption
				if protected {
					opts = append(opts, nodes.WithProtection())
				}
				n := keptNode(t, c, parent+"/node-", mode, []byte("v1"), opts...)
				first := awaitStanding(t, admin, c, n, parent, mode.IsEphemeral())
				name := first[len(parent)+1:]
				if protection.IsProtected(name) != protected {
					t.Fatalf("name %s, protected %v", name, protected)
				}
				if _, err := protection.Sequence(name); (err == nil) != mode.IsSequential() {
					t.Fatalf("name %s in mode %v: sequence error %v", name, mode, err)
				}
				zktest.Must(t, n.SetData(ctx, []byte("v2")))
				zktest.Must(t, admin.Delete(ctx, first))
				zktest.Eventually(t, 30*time.Second, "the node is made again", func() bool {
					ch, _, err := admin.Children(ctx, parent)
					return err == nil && len(ch) == 1
				})
				again := awaitStanding(t, admin, c, n, parent, mode.IsEphemeral())
				if again != first {
					t.Fatalf("made again at %s, first at %s", again, first)
				}
				data, _, err := admin.GetData(ctx, again)
				zktest.Must(t, err)
				if !bytes.Equal(data, []byte("v2")) {
					t.Fatalf("data %q after re-creation, want v2", data)
				}
				zktest.Must(t, n.Close(ctx))
				if ch := children(t, admin, parent); len(ch) != 0 {
					t.Fatalf("children %v after Close", ch)
				}
				if n.Path() != "" && !mode.IsEphemeral() {
					t.Logf("Path() %s after Close", n.Path())
				}
			})
		}
	}
}

func TestPersistentNodeSetDataAppliesNow(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	n := keptNode(t, c, "/set/a", framework.Ephemeral, []byte("one"))
	zktest.Must(t, n.SetData(ctx, []byte("two")))
	data, _, err := c.GetData(ctx, "/set/a")
	zktest.Must(t, err)
	if string(data) != "two" || string(n.Data()) != "two" {
		t.Fatalf("node data %q, Data() %q after SetData(two)", data, n.Data())
	}
}

func TestPersistentNodeLifecycleErrors(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	n, err := nodes.NewPersistentNode(c, "/life/a", framework.Ephemeral, nil)
	zktest.Must(t, err)
	if err := n.WaitForInitialCreate(ctx); !errors.Is(err, nodes.ErrNotStarted) {
		t.Fatalf("wait before Start: %v", err)
	}
	zktest.Must(t, n.Start())
	if err := n.Start(); !errors.Is(err, nodes.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v", err)
	}
	zktest.Must(t, n.WaitForInitialCreate(ctx))
	closeLeavesNoNode(t, c, n.Close, "/life/a")
	zktest.Must(t, n.Close(ctx))
	if err := n.SetData(ctx, nil); !errors.Is(err, nodes.ErrClosed) {
		t.Fatalf("SetData after Close: %v", err)
	}
	if err := n.Start(); !errors.Is(err, nodes.ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	if err := n.WaitForInitialCreate(ctx); !errors.Is(err, nodes.ErrClosed) {
		t.Fatalf("wait after Close: %v", err)
	}

	closedClient := zkclient.New(t, srv.ConnectString())
	m, err := nodes.NewPersistentNode(closedClient, "/life/b", framework.Persistent, nil)
	zktest.Must(t, err)
	zktest.Must(t, closedClient.Close())
	if err := m.Start(); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Start on a closed client: %v", err)
	}
	if err := m.SetData(ctx, nil); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("SetData on a closed client: %v", err)
	}
}

// A started node's keeper ends with its client's Close, without Close of
// its own (goleak in TestMain checks that no goroutine is left).
func TestPersistentNodeEndsWithItsClient(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	n, err := nodes.NewPersistentNode(c, "/ends/a", framework.Ephemeral, nil)
	zktest.Must(t, err)
	zktest.Must(t, n.Start())
	zktest.Must(t, n.WaitForInitialCreate(zktest.TestContext(t)))
	zktest.Must(t, c.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = n.WaitForInitialCreate(ctx)
	zktest.Must(t, err)
}
