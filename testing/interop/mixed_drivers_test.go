package interop

import (
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// Curator's fair InterProcessMutex and zkcurator's UnfairLockInternalsDriver
// on one path, as during a rolling switch of a Java service to a Go one with
// the unfair driver: they exclude each other, whichever holds first. Curator
// sorts the unfair holder node first and waits for it; the unfair driver
// lets Curator's sequence nodes go first.
func TestCuratorFairAndZkcuratorUnfairExcludeEachOther(t *testing.T) {
	srv := startZooKeeper(t)
	gc := newGoClient(t, srv.ConnectString())
	java := StartHelper(t, srv.ConnectString())
	const wait = 700 * time.Millisecond

	t.Run("zkcurator unfair holds, Curator waits", func(t *testing.T) {
		ctx := testContext(t, 40*time.Second)
		const path = "/interop/mixed/go-first"
		unfair := built(locks.NewInterProcessMutex(gc, path, locks.WithDriver(locks.UnfairLockInternalsDriver{})))
		if err := unfair.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		curator := javaMutex(t, ctx, java, "mixed-go-first", path)
		if _, err := java.Acquire(ctx, curator.target, wait); !errors.Is(err, ErrNotAcquired) {
			if err == nil {
				release(t, ctx, curator)
			}
			t.Fatalf("Curator's acquire while the unfair driver holds: %v; want a timeout", err)
		}
		p := curator.start(ctx)
		if err := unfair.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := p.wait(ctx); err != nil {
			t.Fatalf("Curator did not hold once the unfair holder released: %v", err)
		}
		release(t, ctx, curator)
	})

	t.Run("Curator holds, zkcurator unfair waits", func(t *testing.T) {
		ctx := testContext(t, 40*time.Second)
		const path = "/interop/mixed/java-first"
		curator := javaMutex(t, ctx, java, "mixed-java-first", path)
		acquire(t, ctx, curator)
		unfair := built(locks.NewInterProcessMutex(gc, path, locks.WithDriver(locks.UnfairLockInternalsDriver{})))
		held, err := unfair.TryAcquire(ctx, wait)
		if err != nil {
			t.Fatal(err)
		}
		if held {
			_ = unfair.Release(ctx)
			t.Fatal("the unfair driver holds while Curator holds")
		}
		got := make(chan error, 1)
		go func() { got <- unfair.Acquire(ctx) }()
		release(t, ctx, curator)
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatal("the unfair driver did not hold once Curator released")
		}
		if err := unfair.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
