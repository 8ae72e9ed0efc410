package nodes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/testing/locktest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A persistent node that stands at the path already is taken over, as in
// Curator: the initial create completes and the node gets our data.
func TestPersistentNodeAdoptsAStandingPersistentNode(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := locktest.NewClient(t, srv.ConnectString())
	c := locktest.NewClient(t, srv.ConnectString())
	ctx := testCtx(t)
	_, err := admin.Create(ctx, "/adopt/n", []byte("old"), framework.CreatingParentsIfNeeded())
	must(t, err)
	n, err := nodes.NewPersistentNode(c, "/adopt/n", framework.Persistent, []byte("new"))
	must(t, err)
	must(t, n.Start())
	defer n.Close(ctx)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	must(t, n.WaitForInitialCreate(wctx))
	data, _, err := admin.GetData(ctx, "/adopt/n")
	must(t, err)
	if string(data) != "new" || n.Path() != "/adopt/n" {
		t.Fatalf("data %q, Path() %q after taking the node over", data, n.Path())
	}
}

// An ephemeral node of another session at the path never counts as ours:
// the initial create waits until it is gone, then makes our own.
func TestPersistentNodeWaitsOutAnotherSessionsEphemeral(t *testing.T) {
	srv := zktest.StartServer(t)
	admin := locktest.NewClient(t, srv.ConnectString())
	c := locktest.NewClient(t, srv.ConnectString())
	ctx := testCtx(t)
	_, err := admin.Create(ctx, "/other/n", []byte("theirs"), framework.WithMode(framework.Ephemeral), framework.CreatingParentsIfNeeded())
	must(t, err)
	n, err := nodes.NewPersistentNode(c, "/other/n", framework.Ephemeral, []byte("ours"))
	must(t, err)
	must(t, n.Start())
	defer n.Close(ctx)
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if err := n.WaitForInitialCreate(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("initial create while another session's node stands: %v", err)
	}
	if n.Path() != "" {
		t.Fatalf("Path() %q while another session's node stands", n.Path())
	}
	must(t, admin.Delete(ctx, "/other/n"))
	must(t, n.WaitForInitialCreate(ctx))
	stat, err := admin.Exists(ctx, "/other/n")
	must(t, err)
	if stat == nil || stat.EphemeralOwner != c.SessionID() || n.Path() != "/other/n" {
		t.Fatalf("node %+v, Path() %q; want ours (session 0x%x)", stat, n.Path(), c.SessionID())
	}
}
