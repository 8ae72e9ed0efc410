package nodes_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// After the server expires the session, the ephemeral node is back once,
// owned by the new session, at the same protected name.
func TestPersistentNodeBackOnceAfterSessionExpiry(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr())
	n := keptNode(t, c, "/expiry/member-", framework.EphemeralSequential, []byte("x"), nodes.WithProtection())
	first := awaitStanding(t, admin, c, n, "/expiry", true)
	before := c.SessionID()

	lost := awaitLost(t, c)
	proxy.Pause()
	lost()
	if n.Path() != "" {
		t.Fatalf("Path() %s after the session was lost", n.Path())
	}
	proxy.Resume()
	again := awaitStanding(t, admin, c, n, "/expiry", true)
	if c.SessionID() == before {
		t.Fatal("the session did not change")
	}
	if again != first {
		t.Fatalf("made again at %s, first at %s", again, first)
	}
}

// A create whose reply is lost is found again by its protected id: one
// node, never two, whether the client's retry finds it within the create or
// the create fails (no retries) and the keeper tries again with the same id.
// (Without protection the no-retry client is left with two nodes.)
func TestPersistentNodeProtectedLostCreateReplyMakesOneNode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	for _, policy := range []retry.Policy{zkclient.TestRetryPolicy, retry.NTimes{N: 0}} {
		proxy := zktest.StartProxy(t, srv.ConnectString())
		c := zkclient.NewWithPolicy(t, proxy.Addr(), policy,
			framework.WithSessionTimeout(2*time.Second), framework.WithConnectionTimeout(5*time.Second))
		for _, mode := range []framework.CreateMode{framework.EphemeralSequential, framework.PersistentSequential} {
			parent := fmt.Sprintf("/lost/%T/%v", policy, mode)
			// The parent stands, so that the lost reply is the node's own.
			zktest.Must(t, admin.CreateContainers(zktest.TestContext(t), parent+"/x"))
			n, err := nodes.NewPersistentNode(c, parent+"/n-", mode, nil, nodes.WithProtection())
			zktest.Must(t, err)
			proxy.LoseNextReply(zktest.OpCreate, zktest.OpCreate2)
			startNode(t, n)
			if proxy.LostReplies() == 0 {
				t.Fatalf("%s: no reply was lost", parent)
			}
			zktest.Must(t, admin.Delete(zktest.TestContext(t), parent+"/x"))
			awaitStanding(t, admin, c, n, parent, mode.IsEphemeral())
			zktest.Must(t, n.Close(zktest.TestContext(t)))
			proxy.ResetCounts()
		}
	}
}

// A server restart leaves one node, this session's, and the persistent one
// where it was.
func TestPersistentNodeBackOnceAfterServerRestart(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString(), framework.WithSessionTimeout(4*time.Second))
	admin := zkclient.New(t, srv.ConnectString())
	eph, err := nodes.NewPersistentNode(c, "/restart/e/n", framework.Ephemeral, []byte("e"))
	zktest.Must(t, err)
	per, err := nodes.NewPersistentNode(c, "/restart/p/n-", framework.PersistentSequential, []byte("p"))
	zktest.Must(t, err)
	startNode(t, eph)
	startNode(t, per)
	pFirst := per.Path()
	zktest.Must(t, srv.Restart())
	awaitStanding(t, admin, c, eph, "/restart/e", true)
	if again := awaitStanding(t, admin, c, per, "/restart/p", false); again != pFirst {
		t.Fatalf("persistent node at %s after the restart, %s before", again, pFirst)
	}
}

// A node of a session the client gave up (simulated expiry, the server
// still holds it) is replaced by one of the current session.
func TestPersistentNodeReplacesTheNodeOfAGivenUpSession(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := zkclient.New(t, srv.ConnectString())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(6*time.Second),
		framework.WithSimulatedSessionExpirationPercent(30))
	n := keptNode(t, c, "/givenup/n", framework.Ephemeral, nil)
	before := c.SessionID()
	lost := awaitLost(t, c)
	proxy.Pause()
	lost()
	proxy.Sever()
	proxy.Resume()
	awaitStanding(t, admin, c, n, "/givenup", true)
	if c.SessionID() == before {
		t.Fatal("the session did not change")
	}
}
