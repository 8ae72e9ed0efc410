package nodes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A Close while the node's first create is still on its way to the server
// leaves no node behind, in every mode whose node can be found again (all
// but an unprotected sequential one, see the package doc): the create lands
// after the keeper stopped waiting for it, and Close finds it by its name or
// its protected id.
func TestPersistentNodeClosedDuringItsCreateLeavesNoNode(t *testing.T) {
	admin, proxy, c := proxied(t)
	ctx := zktest.TestContext(t)
	for _, tc := range []struct {
		mode      framework.CreateMode
		protected bool
	}{
		{framework.Ephemeral, false},
		{framework.Persistent, false},
		{framework.Ephemeral, true},
		{framework.Persistent, true},
		{framework.EphemeralSequential, true},
		{framework.PersistentSequential, true},
	} {
		parent := fmt.Sprintf("/closing/%v-%v", tc.mode, tc.protected)
		// The parent stands, so that the node's create is one request.
		zktest.Must(t, admin.CreateContainers(ctx, parent+"/x"))
		var opts []nodes.PersistentNodeOption
		if tc.protected {
			opts = append(opts, nodes.WithProtection())
		}
		n, err := nodes.NewPersistentNode(c, parent+"/n", tc.mode, []byte("d"), opts...)
		zktest.Must(t, err)
		proxy.ResetCounts()
		proxy.SetLatency(time.Second)
		zktest.Must(t, n.Start())
		zktest.Eventually(t, 20*time.Second, "the create is on its way", func() bool {
			return proxy.RequestCount(zktest.OpCreate)+proxy.RequestCount(zktest.OpCreate2) > 0
		})
		zktest.Must(t, n.Close(ctx))
		proxy.SetLatency(0)
		// The client's requests are answered in order: once this one is,
		// the create has landed (or not) and Close's delete has run.
		_, err = c.Exists(ctx, parent)
		zktest.Must(t, err)
		zktest.Eventually(t, 20*time.Second, parent+" holds no node of the closed PersistentNode", func() bool {
			ch, _, err := admin.Children(ctx, parent)
			return err == nil && len(ch) == 1 && ch[0] == "x"
		})
	}
}

// A protected ephemeral create that succeeds in a new session (its first
// attempt was cut off with the session the client gave up) is followed by
// a read of the node's owner; when Close cancels that read, the node, which
// the current session owns, is deleted all the same: it never outlives
// Close.
func TestPersistentNodeClosedWhileReadingItsOwnerLeavesNoNode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.NewWithPolicy(t, proxy.Addr(), retry.UntilElapsed{MaxElapsed: 30 * time.Second, Sleep: 20 * time.Millisecond},
		framework.WithSessionTimeout(8*time.Second), framework.WithConnectionTimeout(5*time.Second),
		framework.WithSimulatedSessionExpirationPercent(15))
	ctx := zktest.TestContext(t)
	// The parent stands, so that the node's create is one request.
	zktest.Must(t, admin.CreateContainers(ctx, "/owner-read/x"))
	n, err := nodes.NewPersistentNode(c, "/owner-read/n", framework.Ephemeral, []byte("d"), nodes.WithProtection())
	zktest.Must(t, err)

	// The create starts in the session the client is about to give up.
	old := c.SessionID()
	lost, stopLost := zkclient.LostSignal(c)
	defer stopLost()
	proxy.Pause()
	zktest.Must(t, n.Start())
	select {
	case <-lost:
	case <-time.After(20 * time.Second):
		t.Fatal("the client did not give its session up within 20s")
	}
	// It is made in the next session, then its owner is read: hold that
	// read on the link long enough for Close to cut it short.
	reading := make(chan int64, 1)
	createdIn := int64(0) // the new session a create was sent in (the proxy serializes Trace's calls)
	proxy.Trace(func(f zktest.Frame) {
		switch {
		case f.FromServer || f.Session == old:
		case f.Op == zktest.OpCreate || f.Op == zktest.OpCreate2:
			createdIn = f.Session
		case f.Op == zktest.OpExists && f.Session == createdIn:
			select {
			case reading <- f.Session:
			default:
			}
		}
	})
	defer proxy.Trace(nil)
	proxy.Sever()
	proxy.SetLatency(time.Second)
	proxy.Resume()
	var session int64
	select {
	case session = <-reading:
	case <-time.After(30 * time.Second):
		t.Fatal("the node's owner was never read in a new session")
	}
	closeCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	zktest.Must(t, n.Close(closeCtx))
	proxy.SetLatency(0)
	if c.SessionID() != session {
		t.Fatalf("the session changed again (0x%x, the owner read in 0x%x): the test did not construct its order", c.SessionID(), session)
	}
	if ch := children(t, admin, "/owner-read"); len(ch) != 1 || ch[0] != "x" {
		t.Fatalf("after Close /owner-read holds %v; want only x", ch)
	}
}

// A Close that a stopped server cuts short still leaves no node once the
// server is back, while the sessions live on: not this session's ephemeral
// node, not a protected sequential one of either kind, not a persistent
// node taken over in an ephemeral mode.
func TestPersistentNodeClosedWhileTheServerIsDownLeavesNoNode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString(), framework.WithSessionTimeout(30*time.Second))
	c := zkclient.New(t, srv.ConnectString(), framework.WithSessionTimeout(30*time.Second))
	ctx := zktest.TestContext(t)
	_, err := admin.Create(ctx, "/down/taken/n", nil, framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	var kept []*nodes.PersistentNode
	for _, tc := range []struct {
		path string
		mode framework.CreateMode
		opts []nodes.PersistentNodeOption
	}{
		{"/down/e/n", framework.Ephemeral, nil},
		{"/down/es/n-", framework.EphemeralSequential, []nodes.PersistentNodeOption{nodes.WithProtection()}},
		{"/down/ps/n-", framework.PersistentSequential, []nodes.PersistentNodeOption{nodes.WithProtection()}},
		{"/down/taken/n", framework.Ephemeral, nil},
	} {
		n := keptNode(t, c, tc.path, tc.mode, []byte("d"), tc.opts...)
		kept = append(kept, n)
	}
	zktest.Must(t, srv.Stop())
	for _, n := range kept {
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		if err := n.Close(short); err == nil {
			t.Errorf("Close of %s returned nil with the server down", n.Path())
		}
		cancel()
	}
	zktest.Must(t, srv.Restart())
	for _, parent := range []string{"/down/e", "/down/es", "/down/ps", "/down/taken"} {
		zktest.Eventually(t, 30*time.Second, parent+" is empty", func() bool {
			ch, _, err := admin.Children(ctx, parent)
			return err == nil && len(ch) == 0
		})
	}
}
