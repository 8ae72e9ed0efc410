package nodes_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestNewGroupMemberRejectsBadArguments(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	for _, tc := range []struct{ path, id, want string }{
		{"/g", "", `""`},
		{"/g", "a/b", `"a/b"`},
		{"/", "a", `"/"`},
		{"g", "a", `"g"`},
	} {
		_, err := nodes.NewGroupMember(c, tc.path, tc.id, nil)
		if !errors.Is(err, nodes.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewGroupMember(%q, %q): %v, want ErrInvalidArgument naming %s", tc.path, tc.id, err, tc.want)
		}
	}
}

func TestIDFromPath(t *testing.T) {
	for path, want := range map[string]string{"/g/a": "a", "/a/b/c-1": "c-1", "/x": "x"} {
		if got := nodes.IDFromPath(path); got != want {
			t.Errorf("IDFromPath(%q) = %q, want %q", path, got, want)
		}
	}
}

// serverMembers reads the group's members and data from the server.
func serverMembers(ctx context.Context, c *framework.Client, group string) (map[string][]byte, error) {
	ch, _, err := c.Children(ctx, group)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(ch))
	for _, id := range ch {
		data, _, err := c.GetData(ctx, framework.JoinPath(group, id))
		if err != nil {
			return nil, err
		}
		out[id] = data
	}
	return out, nil
}

// awaitView waits until m's CurrentMembers equal the server's members and
// name exactly want.
func awaitView(t *testing.T, admin *framework.Client, m *nodes.GroupMember, group string, want ...string) {
	t.Helper()
	await(t, 30*time.Second, fmt.Sprintf("member %s sees %v, as the server has them", m.ID(), want), func() (bool, string) {
		view := m.CurrentMembers()
		onServer, err := serverMembers(context.Background(), admin, group)
		ids := make([]string, 0, len(view))
		for id := range view {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		ok := err == nil && strings.Join(ids, ",") == strings.Join(want, ",") &&
			maps.EqualFunc(view, onServer, func(a, b []byte) bool { return string(a) == string(b) })
		return ok, fmt.Sprintf("view %q, server %q (%v)", view, onServer, err)
	})
}

// Three members see each other with their data; when one's client dies,
// the others see it go, and a data change is seen by all.
func TestGroupMembersSeeEachOther(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	clients := make([]*framework.Client, 3)
	members := make([]*nodes.GroupMember, 3)
	for i := range members {
		clients[i] = zkclient.New(t, srv.ConnectString())
		m, err := nodes.NewGroupMember(clients[i], "/group", fmt.Sprintf("m%d", i), []byte(fmt.Sprintf("data%d", i)))
		zktest.Must(t, err)
		zktest.Must(t, m.Start(ctx))
		t.Cleanup(func() { _ = m.Close(context.Background()) })
		members[i] = m
	}
	for _, m := range members {
		awaitView(t, admin, m, "/group", "m0", "m1", "m2")
	}
	zktest.Must(t, members[1].SetThisData(ctx, []byte("new")))
	zktest.Must(t, clients[2].Close())
	for _, m := range members[:2] {
		awaitView(t, admin, m, "/group", "m0", "m1")
		if got := string(m.CurrentMembers()["m1"]); got != "new" {
			t.Fatalf("%s sees m1's data %q", m.ID(), got)
		}
	}
	zktest.Must(t, members[0].Close(ctx))
	awaitView(t, admin, members[1], "/group", "m1")
}

// After each fault (session expiry, a delete by an operator, a server
// restart) every member's view equals the server's.
func TestGroupMemberViewEqualsServerAfterFaults(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	flaky := zkclient.New(t, proxy.Addr())
	steady := zkclient.New(t, srv.ConnectString(), framework.WithSessionTimeout(6*time.Second))
	a, err := nodes.NewGroupMember(flaky, "/faults", "a", []byte("a"))
	zktest.Must(t, err)
	b, err := nodes.NewGroupMember(steady, "/faults", "b", []byte("b"))
	zktest.Must(t, err)
	for _, m := range []*nodes.GroupMember{a, b} {
		zktest.Must(t, m.Start(ctx))
		defer m.Close(context.Background())
	}
	both := func() {
		t.Helper()
		awaitView(t, admin, a, "/faults", "a", "b")
		awaitView(t, admin, b, "/faults", "a", "b")
	}
	both()

	lost := awaitLost(t, flaky)
	proxy.Pause()
	lost()
	awaitView(t, admin, b, "/faults", "b") // the server expired a's session
	proxy.Resume()
	both()

	zktest.Must(t, admin.Delete(ctx, "/faults/b"))
	both()

	zktest.Must(t, srv.Restart())
	both()
}

func TestGroupMemberLifecycle(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	m, err := nodes.NewGroupMember(c, "/life-group", "a", nil)
	zktest.Must(t, err)
	zktest.Must(t, m.Start(ctx))
	if err := m.Start(ctx); !errors.Is(err, nodes.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v", err)
	}
	closeLeavesNoNode(t, c, m.Close, "/life-group/a")
	zktest.Must(t, m.Close(ctx))
	if err := m.Start(ctx); !errors.Is(err, nodes.ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
}

// A GroupMember's Start that fails because its ctx ends while the server
// does not answer returns within its ctx (plus a margin for a loaded
// machine), not after the clean-up it then needs; the member's node, which
// a create still on its way may make, goes once the server answers again.
func TestGroupMemberStartIsBoundedByItsContext(t *testing.T) {
	admin, proxy, c := proxied(t)
	ctx := zktest.TestContext(t)
	gm, err := nodes.NewGroupMember(c, "/start-bound/g", "m", nil)
	zktest.Must(t, err)

	proxy.Pause()
	const wait = 300 * time.Millisecond
	short, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	began := time.Now()
	err = gm.Start(short)
	took := time.Since(began)
	proxy.Resume()
	if err == nil {
		t.Fatal("Start succeeded while the server could not answer")
	}
	if limit := wait + 2*time.Second; took > limit {
		t.Errorf("Start with a %v context returned after %v, want within %v", wait, took, limit)
	}
	awaitGone(t, admin, "/start-bound/g/m")
}
