package interop

import (
	"context"
	"errors"
	"testing"
	"time"
)

// expiryMargin is what a waiter may take beyond the dead holder's session
// timeout: the server expires sessions on tick boundaries, then the waiter's
// watch fires.
const expiryMargin = 2 * time.Second

// TestKilledHolderAcrossLanguages kills the process holding the lock, with
// SIGKILL so that nothing is released: the waiter of the other language gets
// the lock once the dead holder's session expires.
func TestKilledHolderAcrossLanguages(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())

	t.Run("JavaHolderKilled", func(t *testing.T) {
		ctx := testContext(t, 30*time.Second)
		const path = "/interop/killed/java-holder"
		victim := StartHelper(t, srv.ConnectString(), WithName("curator-victim"), WithSessionTimeout(goSessionTimeout))
		holder := javaMutex(t, ctx, victim, "victim", path)
		acquire(t, ctx, holder)
		waiter := goMutex(newGoClient(t, srv.ConnectString()), "go-waiter", path)
		waiting := waiter.start(ctx)
		obs.waitChildren(ctx, path, 2)

		killed := now()
		if err := victim.Kill(); err != nil {
			t.Fatal(err)
		}
		if _, err := victim.Participants(ctx, "victim"); !errors.Is(err, ErrExited) {
			t.Fatalf("command to a killed helper: err = %v, want ErrExited", err)
		}
		awaitTakeover(t, ctx, waiting, killed, victim.SessionTimeout(), "Go waiter", "Curator holder")
		release(t, ctx, waiter)
		obs.waitChildren(ctx, path, 0)
	})

	t.Run("GoHolderKilled", func(t *testing.T) {
		const path = "/interop/killed/go-holder"
		goHolderKilled(t, srv.ConnectString(), obs, path, "Curator waiter", func(ctx context.Context) contender {
			return javaMutex(t, ctx, StartHelper(t, srv.ConnectString()), "waiter", path)
		})
	})
}

// goHolderKilled kills a Go process holding the lock at path while a waiter
// of another library (newWaiter, named who) waits: the waiter gets the lock
// once the dead holder's session expires, on a node of its own.
func goHolderKilled(t *testing.T, connect string, obs *observer, path, who string, newWaiter func(context.Context) contender) {
	ctx := testContext(t, 30*time.Second)
	holder := startGoHolder(t, ctx, connect, path)
	waiter := newWaiter(ctx)
	waiting := waiter.start(ctx)
	obs.waitChildren(ctx, path, 2)

	killed := now()
	holder.kill(t)
	awaitTakeover(t, ctx, waiting, killed, holder.sessionTimeout, who, "Go holder")
	if waiting.node == holder.node {
		t.Fatalf("%s reports the dead holder's node %s", who, holder.node)
	}
	release(t, ctx, waiter)
	obs.waitChildren(ctx, path, 0)
}

// awaitTakeover waits for waiting to get the lock and checks that it did
// within the killed holder's session timeout plus expiryMargin.
func awaitTakeover(t *testing.T, ctx context.Context, waiting *pending, killed time.Time, session time.Duration, who, holder string) {
	t.Helper()
	if err := waiting.wait(ctx); err != nil {
		t.Fatal(err)
	}
	took, limit := waiting.at.Sub(killed), session+expiryMargin
	if took > limit {
		t.Fatalf("%s got the lock %v after the %s was killed, want within %v", who, took, holder, limit)
	}
	t.Logf("%s got the lock %v after the kill (session timeout %v)", who, took, session)
}
