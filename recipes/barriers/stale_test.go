package barriers_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/internal/testhook"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A member never counts a node of its own: the delete of a cancelled
// Enter's node is left to the client's background queue (held here, so the
// node stands), and the member's next Enter must not count that node as a
// second member and open a barrier of two alone. With a real second member
// it opens, and exactly two member nodes stand.
func TestDoubleBarrierDoesNotCountItsOwnStaleNode(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const path = "/double/stale"
	c := zkclient.New(t, srv.ConnectString())
	observer := zkclient.New(t, srv.ConnectString())
	resume := testhook.HoldBackground(c)
	held := true
	t.Cleanup(func() {
		if held {
			resume()
		}
	})
	a, err := barriers.NewDistributedDoubleBarrier(c, path, 2)
	zktest.Must(t, err)

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = a.Enter(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a lone member's Enter = %v, want DeadlineExceeded", err)
	}
	stale := a.MemberPath()[len(path+"/"):]
	if kids, err := children(ctx, observer, path); err != nil || !slices.Contains(kids, stale) {
		t.Fatalf("children %v, %v: want the cancelled Enter's node %s still standing (its delete queued)", kids, err, stale)
	}

	short, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
	err = a.Enter(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the same member's next Enter, alone beside its own earlier node = %v, want DeadlineExceeded", err)
	}
	kids, err := children(ctx, observer, path)
	zktest.Must(t, err)
	if slices.Contains(kids, "ready") {
		t.Fatalf("children %v: one member opened a barrier of two", kids)
	}

	b, err := barriers.NewDistributedDoubleBarrier(observer, path, 2)
	zktest.Must(t, err)
	entered := make(chan error, 1)
	go func() { entered <- a.Enter(ctx) }()
	zktest.Must(t, b.Enter(ctx))
	select {
	case err := <-entered:
		zktest.Must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the member did not pass Enter beside a second member")
	}
	kids, err = children(ctx, observer, path)
	zktest.Must(t, err)
	members := slices.DeleteFunc(slices.Clone(kids), func(k string) bool { return k == "ready" })
	if len(members) != 2 || slices.Contains(members, stale) {
		t.Fatalf("children %v: want two member nodes, none the cancelled Enter's %s", kids, stale)
	}

	held = false
	idle := resume()
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
		t.Fatal("the background queue did not run empty")
	}
	if after, err := children(ctx, observer, path); err != nil || len(after) != len(kids) {
		t.Fatalf("children after the queued deletes ran = %v, %v; want %v: a late delete removed a member", after, err, kids)
	}
	left := make(chan error, 1)
	go func() { left <- a.Leave(ctx) }()
	zktest.Must(t, b.Leave(ctx))
	select {
	case err := <-left:
		zktest.Must(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the member did not pass Leave")
	}
}
