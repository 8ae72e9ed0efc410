package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/testhook"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// With a caller-kept protected id every later node of the owner carries the
// id too: the clean-up of a failed create must delete only what that create
// made, never what a later create, or an owner that adopted the node, holds.
// The client's background queue is held so that the clean-up comes last; a
// later create with the id waits for it.
func TestFailedProtectedCreateCleanupSparesLaterHolds(t *testing.T) {
	srv := sharedServer(t)
	observer := newClient(t, srv.ConnectString())

	// failCreate makes a Create with id fail while its request is on the wire,
	// through a client whose queue is held, and returns the client, the
	// parent, the node the late request made and resume.
	failCreate := func(t *testing.T, id string) (*framework.Client, string, string, func() <-chan struct{}) {
		ctx := testCtx(t)
		p := zktest.StartProxy(t, srv.ConnectString())
		c := newClient(t, p.Addr(), framework.WithSessionTimeout(4*time.Second))
		parent := testRoot(t)
		if _, err := observer.Create(ctx, parent, nil); err != nil {
			t.Fatal(err)
		}
		resume := testhook.HoldBackground(c)
		t.Cleanup(func() { resume() })
		p.SetLatency(300 * time.Millisecond)
		cctx, cancel := context.WithCancel(ctx)
		got := make(chan error, 1)
		go func() {
			_, err := c.Create(cctx, parent+"/n", nil, framework.WithProtectedID(id))
			got <- err
		}()
		eventually(t, "the create on the wire", func() bool {
			return p.RequestCount(zktest.OpCreate)+p.RequestCount(zktest.OpCreate2) > 0
		})
		cancel()
		if err := <-got; !errors.Is(err, context.Canceled) {
			t.Fatalf("Create cancelled on the wire = %v, want context.Canceled", err)
		}
		p.SetLatency(0)
		var late []string
		eventually(t, "the late node", func() bool {
			late = protectedChildren(t, observer, parent)
			return len(late) == 1
		})
		return c, parent, parent + "/" + late[0], resume
	}

	t.Run("LaterCreate", func(t *testing.T) {
		ctx := testCtx(t)
		id := protection.NewID()
		c, parent, _, resume := failCreate(t, id)
		created := make(chan string, 1)
		go func() {
			p, err := c.Create(ctx, parent+"/n", nil, framework.WithProtectedID(id))
			if err != nil {
				t.Errorf("later Create: %v", err)
			}
			created <- p
		}()
		select {
		case p := <-created:
			t.Fatalf("a later Create with the id returned %s while the clean-up of a failed one was pending", p)
		case <-time.After(time.Second):
		}
		idle := resume()
		later := <-created
		<-idle
		if stat, err := observer.Exists(ctx, later); err != nil || stat == nil {
			t.Fatalf("Exists(%s), the later create's node, after the clean-up = %v, %v; want it kept", later, stat, err)
		}
		if got := protectedChildren(t, observer, parent); len(got) != 1 {
			t.Fatalf("protected children after the clean-up = %v; want only the later create's node", got)
		}
	})

	t.Run("AdoptedNode", func(t *testing.T) {
		ctx := testCtx(t)
		_, _, late, resume := failCreate(t, protection.NewID())
		if _, err := observer.SetData(ctx, late, []byte("adopted"), 0); err != nil {
			t.Fatal(err)
		}
		<-resume()
		if stat, err := observer.Exists(ctx, late); err != nil || stat == nil {
			t.Fatalf("Exists(%s), written since the failed create, after the clean-up = %v, %v; want it kept", late, stat, err)
		}
	})
}
