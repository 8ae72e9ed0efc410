package interop

import (
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
		if err := waiting.wait(ctx); err != nil {
			t.Fatal(err)
		}
		took, limit := waiting.at.Sub(killed), victim.SessionTimeout()+expiryMargin
		if took > limit {
			t.Fatalf("Go waiter got the lock %v after the Curator holder was killed, want within %v", took, limit)
		}
		t.Logf("Go waiter got the lock %v after the kill (session timeout %v)", took, victim.SessionTimeout())
		release(t, ctx, waiter)
		obs.waitChildren(ctx, path, 0)
	})

	t.Run("GoHolderKilled", func(t *testing.T) {
		ctx := testContext(t, 30*time.Second)
		const path = "/interop/killed/go-holder"
		holder := startGoHolder(t, ctx, srv.ConnectString(), path)
		java := StartHelper(t, srv.ConnectString())
		waiter := javaMutex(t, ctx, java, "waiter", path)
		waiting := waiter.start(ctx)
		obs.waitChildren(ctx, path, 2)

		killed := now()
		holder.kill(t)
		if err := waiting.wait(ctx); err != nil {
			t.Fatal(err)
		}
		took, limit := waiting.at.Sub(killed), holder.sessionTimeout+expiryMargin
		if took > limit {
			t.Fatalf("Curator waiter got the lock %v after the Go holder was killed, want within %v", took, limit)
		}
		t.Logf("Curator waiter got the lock %v after the kill (session timeout %v)", took, holder.sessionTimeout)
		if waiting.node == holder.node {
			t.Fatalf("Curator waiter reports the dead holder's node %s", holder.node)
		}
		release(t, ctx, waiter)
		obs.waitChildren(ctx, path, 0)
	})
}
