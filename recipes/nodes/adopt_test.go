package nodes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A persistent node that stands at the path already is taken over, as in
// Curator: the initial create completes and the node gets our data.
func TestPersistentNodeAdoptsAStandingPersistentNode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	_, err := admin.Create(zktest.TestContext(t), "/adopt/n", []byte("old"), framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	takenOver(t, admin, zkclient.New(t, srv.ConnectString()), "/adopt/n", framework.Persistent)
}

// An ephemeral node of another session at the path never counts as ours:
// the initial create waits until it is gone, then makes our own.
func TestPersistentNodeWaitsOutAnotherSessionsEphemeral(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	_, err := admin.Create(ctx, "/other/n", []byte("theirs"), framework.WithMode(framework.Ephemeral), framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	n, err := nodes.NewPersistentNode(c, "/other/n", framework.Ephemeral, []byte("ours"))
	zktest.Must(t, err)
	zktest.Must(t, n.Start())
	defer n.Close(ctx)
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if err := n.WaitForInitialCreate(short); !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "another session") {
		t.Fatalf("initial create while another session's node stands: %v; want the deadline, naming the other session's node", err)
	}
	if n.Path() != "" {
		t.Fatalf("Path() %q while another session's node stands", n.Path())
	}
	zktest.Must(t, admin.Delete(ctx, "/other/n"))
	zktest.Must(t, n.WaitForInitialCreate(ctx))
	stat, err := admin.Exists(ctx, "/other/n")
	zktest.Must(t, err)
	if stat == nil || stat.EphemeralOwner != c.SessionID() || n.Path() != "/other/n" {
		t.Fatalf("node %+v, Path() %q; want ours (session 0x%x)", stat, n.Path(), c.SessionID())
	}
	closeLeavesNoNode(t, admin, n.Close, "/other/n")
}

// takenOver starts a PersistentNode in mode at path, where a node stands
// already, and checks that it is taken over as Curator does: the initial
// create completes, the node gets our data and Path reports it; then Close
// deletes it. It returns the node's stat while it was kept.
func takenOver(t *testing.T, admin, c *framework.Client, path string, mode framework.CreateMode) *zk.Stat {
	t.Helper()
	ctx := zktest.TestContext(t)
	n, err := nodes.NewPersistentNode(c, path, mode, []byte("ours"))
	zktest.Must(t, err)
	zktest.Must(t, n.Start())
	defer n.Close(ctx)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	zktest.Must(t, n.WaitForInitialCreate(wctx))
	data, stat, err := admin.GetData(ctx, path)
	zktest.Must(t, err)
	if string(data) != "ours" || n.Path() != path {
		t.Fatalf("%v over a standing node: data %q, Path() %q; want ours at %s", mode, data, n.Path(), path)
	}
	closeLeavesNoNode(t, admin, n.Close, path)
	return stat
}

// An ephemeral PersistentNode that meets a node no session owns at its
// path (a persistent leftover of an earlier run, a container, a TTL node)
// takes it over as it is, as Curator does: the initial create completes at
// once, the node keeps its kind and stands for this client in any session,
// and Close deletes it.
func TestPersistentNodeEphemeralTakesOverAStandingPersistentNode(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes())
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	for _, tc := range []struct {
		mode framework.CreateMode
		opts []framework.CreateOption
	}{
		{framework.Persistent, nil},
		{framework.Container, nil},
		{framework.PersistentWithTTL, []framework.CreateOption{framework.WithTTL(time.Hour)}},
	} {
		path := fmt.Sprintf("/leftover/%v", tc.mode)
		opts := append([]framework.CreateOption{framework.WithMode(tc.mode), framework.CreatingParentsIfNeeded()}, tc.opts...)
		_, err := admin.Create(zktest.TestContext(t), path, []byte("old"), opts...)
		zktest.Must(t, err)
		before, err := admin.Exists(zktest.TestContext(t), path)
		zktest.Must(t, err)
		if stat := takenOver(t, admin, c, path, framework.Ephemeral); stat.EphemeralOwner != before.EphemeralOwner {
			t.Fatalf("the node kept at %s has owner field 0x%x; want the %v node taken over (0x%x)", path, stat.EphemeralOwner, tc.mode, before.EphemeralOwner)
		}
	}
}

// A persistent PersistentNode that meets an ephemeral node of another
// session takes it over as Curator does (data set, Close deletes it); once
// that session ends and its node with it, the keeper makes its own
// persistent node.
func TestPersistentNodePersistentTakesOverAnotherSessionsEphemeral(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	other := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	_, err := other.Create(ctx, "/theirs/a", []byte("theirs"), framework.WithMode(framework.Ephemeral), framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	if stat := takenOver(t, admin, c, "/theirs/a", framework.Persistent); stat.EphemeralOwner != other.SessionID() {
		t.Fatalf("the node kept is owned by 0x%x; want the other session's 0x%x", stat.EphemeralOwner, other.SessionID())
	}

	_, err = other.Create(ctx, "/theirs/b", []byte("theirs"), framework.WithMode(framework.Ephemeral))
	zktest.Must(t, err)
	n := keptNode(t, c, "/theirs/b", framework.Persistent, []byte("ours"))
	zktest.Must(t, other.Close())
	await(t, 30*time.Second, "a persistent node of ours replaces the other session's", func() (bool, string) {
		data, stat, err := admin.GetData(ctx, "/theirs/b")
		if err != nil || stat.EphemeralOwner != 0 || string(data) != "ours" {
			return false, fmt.Sprintf("%q %+v (%v)", data, stat, err)
		}
		return true, ""
	})
	closeLeavesNoNode(t, admin, n.Close, "/theirs/b")
}

// A node of the kept mode is taken over and its data set: a persistent one
// in a persistent mode, an ephemeral one of the client's own session in an
// ephemeral mode. (Another session's ephemeral node is waited out, see
// TestPersistentNodeWaitsOutAnotherSessionsEphemeral.)
func TestPersistentNodeTakesOverANodeOfItsMode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	_, err := admin.Create(ctx, "/same/p", []byte("old"), framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	if stat := takenOver(t, admin, c, "/same/p", framework.Persistent); stat.EphemeralOwner != 0 {
		t.Fatalf("persistent mode kept an ephemeral node (owner 0x%x)", stat.EphemeralOwner)
	}
	_, err = c.Create(ctx, "/same/e", []byte("old"), framework.WithMode(framework.Ephemeral))
	zktest.Must(t, err)
	if stat := takenOver(t, admin, c, "/same/e", framework.Ephemeral); stat.EphemeralOwner != c.SessionID() {
		t.Fatalf("the node kept is owned by 0x%x; want the client's session 0x%x", stat.EphemeralOwner, c.SessionID())
	}
}

// A node taken over that is deleted before our data reaches it does not
// count as the initial create: WaitForInitialCreate returns once the keeper
// has made the node again, with our data.
func TestPersistentNodeTakenOverNodeGoneBeforeItsDataIsNotTheInitialCreate(t *testing.T) {
	admin, proxy, c := proxied(t)
	ctx := zktest.TestContext(t)
	_, err := admin.Create(ctx, "/gone-over/n", []byte("old"), framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	writing := make(chan struct{}, 1)
	proxy.Trace(func(f zktest.Frame) {
		if !f.FromServer && f.Op == zktest.OpSetData {
			select {
			case writing <- struct{}{}:
			default:
			}
		}
	})
	defer proxy.Trace(nil)
	// The write reaches the server half a second after the proxy reads it:
	// the node is deleted in between.
	proxy.SetLatency(500 * time.Millisecond)
	n, err := nodes.NewPersistentNode(c, "/gone-over/n", framework.Persistent, []byte("ours"))
	zktest.Must(t, err)
	zktest.Must(t, n.Start())
	defer n.Close(ctx)
	select {
	case <-writing:
	case <-time.After(30 * time.Second):
		t.Fatal("our data was never written on the node taken over")
	}
	zktest.Must(t, admin.Delete(ctx, "/gone-over/n"))
	zktest.Must(t, n.WaitForInitialCreate(ctx))
	data, _, err := admin.GetData(ctx, "/gone-over/n")
	if err != nil || string(data) != "ours" {
		t.Fatalf("when the initial create was reported the node held %q (%v); want ours", data, err)
	}
}

// A persistent node taken over in an ephemeral mode stands for this client
// in every session: after the session expires it is still the node kept,
// persistent, with our data, and Path reports it; Close deletes it.
func TestPersistentNodeTakenOverPersistentNodeStandsInEverySession(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	ctx := zktest.TestContext(t)
	_, err := admin.Create(ctx, "/every/n", []byte("old"), framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	n := keptNode(t, c, "/every/n", framework.Ephemeral, []byte("ours"))
	before := c.SessionID()
	expire(t, proxy, c)
	await(t, 30*time.Second, "the node taken over is kept in the new session", func() (bool, string) {
		data, stat, err := admin.GetData(ctx, "/every/n")
		if err != nil || stat.EphemeralOwner != 0 || string(data) != "ours" || n.Path() != "/every/n" || c.SessionID() == before {
			return false, fmt.Sprintf("%q %+v (%v), Path() %q, session 0x%x (0x%x before)", data, stat, err, n.Path(), c.SessionID(), before)
		}
		return true, ""
	})
	closeLeavesNoNode(t, admin, n.Close, "/every/n")
}

// A node taken over whose kind is not the mode's is warned of once, as
// Curator warns of it, naming the path: not again when the keeper looks at
// it again.
func TestPersistentNodeWarnsOnceOfANodeNotOfItsMode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	core, logs := observer.New(zap.WarnLevel)
	c := zkclient.New(t, proxy.Addr(), framework.WithLogger(zap.New(core)))
	ctx := zktest.TestContext(t)
	_, err := admin.Create(ctx, "/warned/n", nil, framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	n := keptNode(t, c, "/warned/n", framework.Ephemeral, []byte("ours"))
	// A change of the node makes the keeper look at it again: its exists
	// request, and the reply to it, go through the proxy.
	var mu sync.Mutex
	var xid int32 // the exists request's, once sent
	answered := make(chan struct{})
	proxy.Trace(func(f zktest.Frame) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !f.FromServer && f.Op == zktest.OpExists && xid == 0:
			xid = f.Xid
		case f.FromServer && xid > 0 && f.Xid == xid:
			close(answered)
			xid = -2 // done: no xid of a request or a reply
		}
	})
	defer proxy.Trace(nil)
	_, err = admin.SetData(ctx, "/warned/n", []byte("theirs"), -1)
	zktest.Must(t, err)
	select {
	case <-answered:
	case <-time.After(10 * time.Second):
		t.Fatal("the keeper did not look at the node again")
	}
	warnings := func() int {
		return logs.FilterMessageSnippet("not of the kept mode").FilterField(zap.String("path", "/warned/n")).Len()
	}
	// A second warning would follow the reply at once; none comes within 2s.
	deadline := time.Now().Add(2 * time.Second)
	for warnings() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	zktest.Must(t, n.Close(ctx))
	if warned := warnings(); warned != 1 {
		t.Fatalf("%d warnings of the persistent node kept in an ephemeral mode; want 1 (all: %v)", warned, logs.All())
	}
}
