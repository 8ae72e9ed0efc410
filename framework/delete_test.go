package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// heldDeleteFails starts a delete that the proxy holds and then discards (Sever while
// paused), so the call fails and the request never reaches the server.
func heldDeleteFails(t *testing.T, p *zktest.Proxy, c *framework.Client, path string, opts ...framework.DeleteOption) {
	t.Helper()
	p.Pause()
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	err := c.Delete(short, path, opts...)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Delete while partitioned: %v, want context.DeadlineExceeded", err)
	}
	p.Sever()
	p.Resume()
}

// A guaranteed delete whose request is lost in a severed connection is completed in
// the background after the reconnect; a plain delete in the same situation is not.
func TestGuaranteedDeleteSurvivesSever(t *testing.T) {
	srv := sharedServer(t)
	observer := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	for _, n := range []string{root, root + "/plain", root + "/guaranteed"} {
		if _, err := observer.Create(ctx, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr()+","+p.Addr(), framework.WithSessionTimeout(4*time.Second))

	heldDeleteFails(t, p, c, root+"/plain")
	heldDeleteFails(t, p, c, root+"/guaranteed", framework.Guaranteed())
	eventually(t, "the guaranteed delete to complete", func() bool {
		st, err := observer.Exists(ctx, root+"/guaranteed")
		return err == nil && st == nil
	})
	if st, err := observer.Exists(ctx, root+"/plain"); err != nil || st == nil {
		t.Fatalf("the plain delete was retried: %+v, %v", st, err)
	}
}

// Close gives pending guaranteed deletes time to finish.
func TestCloseDrainsGuaranteedDeletes(t *testing.T) {
	srv := sharedServer(t)
	observer := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := observer.Create(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr()+","+p.Addr(), framework.WithSessionTimeout(4*time.Second))
	heldDeleteFails(t, p, c, path, framework.Guaranteed())
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := observer.Exists(ctx, path); err != nil || st != nil {
		t.Fatalf("node still there after Close: %+v, %v", st, err)
	}
}

// A delete whose reply is lost succeeds on retry: the node is gone, as asked.
func TestDeleteLostReply(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr()+","+p.Addr())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := c.Create(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	p.LoseNextReply(zktest.OpDelete)
	if err := c.Delete(ctx, path); err != nil {
		t.Fatalf("Delete after a lost reply: %v", err)
	}
	if p.LostReplies() != 1 {
		t.Fatal("no reply was lost")
	}
}

func TestDeleteVersionAndChildren(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	root := testRoot(t)
	for _, n := range []string{root + "/a/b/c", root + "/a/d", root + "/e"} {
		if _, err := c.Create(ctx, n, nil, framework.CreatingParentsIfNeeded()); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(ctx, root+"/e", framework.WithVersion(3)); !errors.Is(err, zk.ErrBadVersion) {
		t.Fatalf("Delete with a wrong version: %v, want zk.ErrBadVersion", err)
	}
	if err := c.Delete(ctx, root+"/e", framework.WithVersion(0)); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, root, framework.DeletingChildrenIfNeeded()); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Exists(ctx, root); err != nil || st != nil {
		t.Fatalf("tree still there: %+v, %v", st, err)
	}
}
