package nodes_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// expire pauses p until c reports its session lost (the server expires it
// meanwhile), then resumes it.
func expire(t *testing.T, p *zktest.Proxy, c *framework.Client) {
	t.Helper()
	lost := awaitLost(t, c)
	p.Pause()
	lost()
	p.Resume()
}

// The last SetData is on the node after a lost reply to it and a session
// expiry: the node is made again with it, never with older data.
func TestPersistentNodeLastSetDataSurvivesALostReplyAndAnExpiry(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.NewWithPolicy(t, proxy.Addr(), retry.NTimes{N: 0}, framework.WithSessionTimeout(4*time.Second))
	ctx := zktest.TestContext(t)
	n := keptNode(t, c, "/setlost/n", framework.Ephemeral, []byte("one"))
	proxy.LoseNextReply(zktest.OpSetData)
	_ = n.SetData(ctx, []byte("two")) // the write landed; the client saw a loss
	if proxy.LostReplies() != 1 {
		t.Fatalf("%d replies lost, want the SetData's", proxy.LostReplies())
	}
	expire(t, proxy, c)
	awaitStanding(t, admin, c, n, "/setlost", true)
	data, _, err := admin.GetData(ctx, "/setlost/n")
	zktest.Must(t, err)
	if string(data) != "two" {
		t.Fatalf("made again with %q after SetData(two)", data)
	}
}

// A GroupMember whose create reply is lost ends with one node, this
// session's, and a view equal to the server's; or, when its Start fails
// for it, with none.
func TestGroupMemberLostCreateReplyLeavesOneMemberNode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	zktest.Must(t, admin.CreateContainers(ctx, "/lostgroup/other"))
	for _, policy := range []retry.Policy{zkclient.TestRetryPolicy, retry.NTimes{N: 0}} {
		c := zkclient.NewWithPolicy(t, proxy.Addr(), policy)
		m, err := nodes.NewGroupMember(c, "/lostgroup", "me", []byte("d"))
		zktest.Must(t, err)
		lostBefore := proxy.LostReplies()
		proxy.LoseNextReply(zktest.OpCreate, zktest.OpCreate2)
		err = m.Start(ctx)
		if proxy.LostReplies() != lostBefore+1 {
			t.Fatalf("%T: %d replies lost, want the create's", policy, proxy.LostReplies())
		}
		if err != nil {
			// Without retries the cache's load may meet the severed
			// connection: Start fails, and leaves no member node (its
			// delete may finish in the background).
			awaitGone(t, admin, "/lostgroup/me")
			continue
		}
		awaitView(t, admin, m, "/lostgroup", "me", "other")
		stat, err := admin.Exists(ctx, "/lostgroup/me")
		zktest.Must(t, err)
		if stat == nil || stat.EphemeralOwner != c.SessionID() {
			t.Fatalf("%T: member node %+v, session %x", policy, stat, c.SessionID())
		}
		closeLeavesNoNode(t, admin, m.Close, "/lostgroup/me")
	}
}

// Close returns by its context in a partition, for every keeper in the
// package, and the node goes once the partition heals (its delete is
// guaranteed).
func TestCloseReturnsByItsContextInAPartition(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes())
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(30*time.Second))
	ctx := zktest.TestContext(t)
	pn := keptNode(t, c, "/part/p/n", framework.Persistent, nil)
	tn, err := nodes.NewPersistentTTLNode(c, "/part/t", time.Second, nil)
	zktest.Must(t, err)
	zktest.Must(t, tn.Start())
	zktest.Must(t, tn.WaitForInitialCreate(ctx))
	gm, err := nodes.NewGroupMember(c, "/part/g", "m", nil)
	zktest.Must(t, err)
	zktest.Must(t, gm.Start(ctx))

	proxy.Pause()
	for _, closer := range []func(context.Context) error{pn.Close, tn.Close, gm.Close} {
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		done := make(chan struct{})
		go func() { _ = closer(short); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("Close did not return within 20 s of its 300 ms context")
		}
		cancel()
	}
	proxy.Resume()
	for _, path := range []string{"/part/p/n", "/part/t", "/part/g/m"} {
		awaitGone(t, admin, path)
	}
}

// A SetData that fails without a connection loss (its context ended before
// the write went out) still reaches the node: the keeper writes the latest
// data, with no reconnect and no re-creation to prompt it.
func TestPersistentNodeFailedSetDataStillReachesTheNode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	n := keptNode(t, c, "/setfail/n", framework.Ephemeral, []byte("one"))
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if err := n.SetData(ended, []byte("two")); err == nil {
		t.Log("the write went out before the context was seen to end")
	}
	zktest.Eventually(t, 30*time.Second, "the node holds the last SetData", func() bool {
		data, _, err := admin.GetData(ctx, "/setfail/n")
		return err == nil && string(data) == "two"
	})
}
