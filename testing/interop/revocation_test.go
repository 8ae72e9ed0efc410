package interop

import (
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// TestRevocationAcrossLanguages checks that a revocation request reaches the
// holder in the other language: Curator's Revoker.attemptRevoke calls a Go
// holder's MakeRevocable callback, and zkcurator's AttemptRevoke calls a Curator
// revocation listener; in both cases the waiter of the first language then
// gets the lock.
func TestRevocationAcrossLanguages(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())

	t.Run("JavaRevokesGoHolder", func(t *testing.T) {
		ctx := testContext(t, 30*time.Second)
		const path = "/interop/revoke/go-holder"
		m := built(locks.NewInterProcessMutex(gc, path))
		revoked := make(chan struct{}, 1)
		m.MakeRevocable(func() {
			select {
			case revoked <- struct{}{}:
			default:
			}
		})
		holder := &goContender{name: "go-holder", m: m}
		held := acquire(t, ctx, holder)
		waiter := javaMutex(t, ctx, java, fresh("waiter"), path)
		waiting := waiter.start(ctx)
		obs.waitChildren(ctx, path, 2)

		select {
		case <-revoked:
			t.Fatal("revocation callback called before anyone asked")
		default:
		}
		if err := java.AttemptRevoke(ctx, held.node); err != nil {
			t.Fatal(err)
		}
		select {
		case <-revoked:
		case <-ctx.Done():
			t.Fatalf("Curator's Revoker.attemptRevoke on %s did not reach the Go holder's callback", held.node)
		}
		holds := handOver(t, ctx, []contender{holder, waiter}, []*pending{held, waiting}, nil)
		checkExclusive(t, holds)
	})

	t.Run("GoRevokesJavaHolder", func(t *testing.T) {
		ctx := testContext(t, 30*time.Second)
		const path = "/interop/revoke/java-holder"
		holder := javaMutex(t, ctx, java, fresh("holder"), path)
		listener, err := java.MakeRevocable(ctx, holder.target)
		if err != nil {
			t.Fatal(err)
		}
		held := acquire(t, ctx, holder)
		waiter := goMutex(gc, "go-waiter", path)
		waiting := waiter.start(ctx)
		obs.waitChildren(ctx, path, 2)

		if got := listener.Events(KindRevokeRequested); len(got) != 0 {
			t.Fatalf("revocation listener called before anyone asked: %v", got)
		}
		if err := locks.AttemptRevoke(ctx, gc, held.node); err != nil {
			t.Fatal(err)
		}
		if _, err := listener.Await(ctx, KindRevokeRequested); err != nil {
			t.Fatalf("zkcurator's AttemptRevoke on %s did not reach Curator's listener: %v", held.node, err)
		}
		released, err := listener.Await(ctx, KindReleased)
		if err != nil {
			t.Fatal(err)
		}
		if err := waiting.wait(ctx); err != nil {
			t.Fatal(err)
		}
		if !waiting.at.After(released.At) {
			t.Fatalf("Go waiter acquired at %v, before the revoked Curator holder began releasing at %v", waiting.at, released.At)
		}
		rel := release(t, ctx, waiter)
		checkExclusive(t, []hold{{holder.String(), held.at, released.At}, {waiter.String(), waiting.at, rel}})
	})
}
