package nodes_test

import (
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// watchedBy returns the paths under prefix the server holds watches of
// session on (four-letter word wchc).
func watchedBy(t *testing.T, addr string, session int64, prefix string) []string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	zktest.Must(t, err)
	defer conn.Close()
	zktest.Must(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = conn.Write([]byte("wchc"))
	zktest.Must(t, err)
	out, err := io.ReadAll(conn)
	zktest.Must(t, err)
	var paths []string
	mine := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "0x"):
			mine = line == fmt.Sprintf("0x%x", session)
		case mine && strings.HasPrefix(strings.TrimSpace(line), prefix):
			paths = append(paths, strings.TrimSpace(line))
		}
	}
	return paths
}

// Nothing a keeper set outlives its Close: after a session expiry and a
// reconnect (which re-arm the watches), once the watched nodes change the
// server holds no watch of the client's under the closed keepers' paths;
// none is set again (and goleak in TestMain finds no goroutine).
func TestCloseLeavesNoWatch(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes())
	proxy := zktest.StartProxy(t, srv.ConnectString())
	admin := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	ctx := zktest.TestContext(t)
	pn := keptNode(t, c, "/w/p/n-", framework.EphemeralSequential, nil, nodes.WithProtection())
	tn, err := nodes.NewPersistentTTLNode(c, "/w/t", time.Second, nil)
	zktest.Must(t, err)
	zktest.Must(t, tn.Start())
	zktest.Must(t, tn.WaitForInitialCreate(ctx))
	gm, err := nodes.NewGroupMember(c, "/w/g", "m", nil)
	zktest.Must(t, err)
	zktest.Must(t, gm.Start(ctx))
	other, err := nodes.NewGroupMember(admin, "/w/g", "o", nil)
	zktest.Must(t, err)
	zktest.Must(t, other.Start(ctx))
	defer other.Close(ctx)

	expire(t, proxy, c)
	awaitStanding(t, admin, c, pn, "/w/p", true)
	awaitView(t, admin, gm, "/w/g", "m", "o")
	proxy.Sever() // a reconnect within the session
	awaitStanding(t, admin, c, pn, "/w/p", true)
	session := c.SessionID()
	zktest.Eventually(t, 30*time.Second, "the keepers' watches set again after the reconnect", func() bool {
		return len(watchedBy(t, srv.ConnectString(), session, "/w")) >= 3
	})
	zktest.Must(t, pn.Close(ctx))
	zktest.Must(t, tn.Close(ctx))
	zktest.Must(t, gm.Close(ctx))
	// One-shot watches end when their nodes change: the closed keepers'
	// nodes are gone, the other member changes its data, and the group
	// node (the cache watches it too) changes.
	zktest.Must(t, other.SetThisData(ctx, []byte("x")))
	_, err = admin.SetData(ctx, "/w/g", []byte("x"), -1)
	zktest.Must(t, err)
	zktest.Eventually(t, 30*time.Second, "no watch of the closed keepers", func() bool {
		return len(watchedBy(t, srv.ConnectString(), session, "/w")) == 0
	})
	if c.SessionID() != session {
		t.Fatal("the session changed: the check above proves nothing")
	}
}
