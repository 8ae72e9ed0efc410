package interop

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCuratorHelpers checks the harness itself: Curator against Curator, through
// two helper processes, behaves as a lock must, and the driver reports what
// happened faithfully.
func TestCuratorHelpers(t *testing.T) {
	srv := startZooKeeper(t)
	obs := newObserver(t, srv.ConnectString())
	a := StartHelper(t, srv.ConnectString(), WithName("curator-a"))
	b := StartHelper(t, srv.ConnectString(), WithName("curator-b"))

	t.Run("MutexExcludesAndHandsOver", func(t *testing.T) {
		ctx := testContext(t, 20*time.Second)
		const path = "/interop/curator/handover"
		for _, h := range []*Helper{a, b} {
			if err := h.Mutex(ctx, "handover", path); err != nil {
				t.Fatal(err)
			}
		}
		held, err := a.Acquire(ctx, "handover", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		waiting, err := b.AcquireAsync("handover", 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		kids := obs.waitChildren(ctx, path, 2)
		parts, err := b.Participants(ctx, "handover")
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) != 2 || parts[0] != held.Field(1) || parts[1] != path+"/"+kids[1] {
			t.Fatalf("participants %q, want the holder %s then the waiter %s", parts, held.Field(1), kids[1])
		}
		if got := waiting.Events(KindAcquired); len(got) != 0 {
			t.Fatalf("b acquired while a held the lock: %v", got)
		}
		released, err := a.Release(ctx, "handover")
		if err != nil {
			t.Fatal(err)
		}
		got, err := waiting.Acquired(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !got.At.After(released.At) {
			t.Fatalf("b acquired at %v, before a began releasing at %v", got.At, released.At)
		}
		if got.Field(1) != parts[1] {
			t.Fatalf("b holds %s, want its waiting node %s", got.Field(1), parts[1])
		}
		if _, err := b.Release(ctx, "handover"); err != nil {
			t.Fatal(err)
		}
		obs.waitChildren(ctx, path, 0)
	})

	t.Run("CounterUnderMutex", func(t *testing.T) {
		ctx := testContext(t, 60*time.Second)
		const (
			path    = "/interop/curator/count/lock"
			counter = "/interop/curator/count/value"
			rounds  = 25
		)
		obs.create(counter, []byte("0"))
		var calls []*Call
		var owners []string
		for _, h := range []*Helper{a, b} {
			for i := range 2 {
				handle := fmt.Sprintf("count%d", i)
				if err := h.Mutex(ctx, handle, path); err != nil {
					t.Fatal(err)
				}
				c, err := h.Count(handle, counter, rounds, 20*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				calls = append(calls, c)
				owners = append(owners, h.Name()+"/"+handle)
			}
		}
		var holds []hold
		for i, c := range calls {
			if _, err := c.Await(ctx, KindCounted); err != nil {
				t.Fatal(err)
			}
			for _, e := range c.Events(KindRound) {
				h, err := holdFromRound(owners[i], e)
				if err != nil {
					t.Fatal(err)
				}
				holds = append(holds, h)
			}
		}
		if len(holds) != len(calls)*rounds {
			t.Fatalf("%d rounds reported, want %d", len(holds), len(calls)*rounds)
		}
		checkExclusive(t, holds)
		if got, want := obs.counter(counter), int64(len(calls)*rounds); got != want {
			t.Fatalf("counter = %d, want %d: increments were lost", got, want)
		}
	})

	t.Run("ErrorsAreReported", func(t *testing.T) {
		ctx := testContext(t, 10*time.Second)
		if err := a.Mutex(ctx, "unowned", "/interop/curator/unowned"); err != nil {
			t.Fatal(err)
		}
		_, err := a.Release(ctx, "unowned")
		if !errors.Is(err, ErrCommandFailed) || !strings.Contains(err.Error(), "IllegalMonitorStateException") {
			t.Fatalf("release of an unheld Curator mutex: err = %v, want ErrCommandFailed with IllegalMonitorStateException", err)
		}
		if _, err := a.Acquire(ctx, "no-such-handle", time.Second); !errors.Is(err, ErrCommandFailed) {
			t.Fatalf("acquire of an undefined handle: err = %v, want ErrCommandFailed", err)
		}
		if _, err := a.Send("acquire", "two words"); err == nil {
			t.Fatal("Send accepted an argument with a space")
		}
	})
}

// TestCuratorHelperQuit checks the orderly exit: Quit closes the Curator client,
// which deletes its lock node at once instead of leaving it to session expiry.
func TestCuratorHelperQuit(t *testing.T) {
	srv := startZooKeeper(t)
	ctx := testContext(t, 20*time.Second)
	const path = "/interop/curator/quit"
	quitter := StartHelper(t, srv.ConnectString(), WithName("curator-quitter"))
	waiter := StartHelper(t, srv.ConnectString(), WithName("curator-waiter"))
	for _, h := range []*Helper{quitter, waiter} {
		if err := h.Mutex(ctx, "quit", path); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := quitter.Acquire(ctx, "quit", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	waiting, err := waiter.AcquireAsync("quit", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	newObserver(t, srv.ConnectString()).waitChildren(ctx, path, 2)
	quit := now()
	if err := quitter.Quit(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := waiting.Acquired(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if took := got.At.Sub(quit); took >= quitter.SessionTimeout() {
		t.Fatalf("waiter acquired %v after the holder quit, not before the %v session timeout: the session was not closed", took, quitter.SessionTimeout())
	}
}
