package framework_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The last Close of a watch whose addWatch on a new connection is still
// unanswered (a slow server), with a ctx that ends before the answer: the
// watch is removed once the server has answered, and the client holds
// nothing of it, so the other mode may be set on the path.
func TestWatchCloseWhileAddWatchUnansweredLeavesNothing(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	// The addWatch round trip must fit in the exchange (a third of the
	// session timeout) and a ping's in go-zookeeper's read timeout.
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(9*time.Second))
	path := testRoot(t)
	w, err := c.AddWatch(testCtx(t), path, framework.WatchPersistent)
	if err != nil {
		t.Fatal(err)
	}
	const oneWay = 400 * time.Millisecond
	p.SetLatency(oneWay)
	sent := p.RequestCount(opAddWatch)
	p.Sever()
	zktest.Eventually(t, testWait, "the addWatch of the next connection", func() bool {
		return p.RequestCount(opAddWatch) > sent
	})
	ctx, cancel := context.WithTimeout(context.Background(), oneWay/4) // ends before the reply comes back
	err = w.Close(ctx)
	cancel()
	t.Logf("Close while the addWatch is unanswered: %v", err)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close = %v, want nil or the ctx's error", err)
	}
	p.SetLatency(0)
	if _, err := c.Exists(testCtx(t), "/"); err != nil { // behind the exchange: the addWatch was answered
		t.Fatal(err)
	}
	zktest.Eventually(t, testWait, "no session watching "+path, func() bool { return watchers(t, srv, path) == 0 })
	var other *framework.PersistentWatch
	zktest.Eventually(t, testWait, "the other mode set on "+path, func() bool {
		other, err = c.AddWatch(testCtx(t), path, framework.WatchPersistentRecursive)
		if err != nil && !errors.Is(err, framework.ErrWatchModeConflict) {
			t.Fatal(err)
		}
		return err == nil
	})
	if err := other.Close(testCtx(t)); err != nil {
		t.Fatal(err)
	}
}

// No event is received once Close has returned, even while the handle's
// events are being handed to a reader: the channel is closed by then. A
// second handle keeps the server's watch, so that Close has no round trip.
// On one processor the handle's goroutine, parked on its first event and
// readied by the reader's receive, runs only once the reader waits again,
// after Close: the race is played in every round rather than by chance.
func TestWatchNoEventAfterClose(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := c.Create(ctx, path, nil); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	keep := addWatch(t, c, path, framework.WatchPersistent)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const rounds, changes = 20, 4
	for round := range rounds {
		w := addWatch(t, c, path, framework.WatchPersistent)
		for i := range changes {
			if _, err := c.SetData(ctx, path, []byte(fmt.Sprint(round, i)), -1); err != nil {
				t.Fatal(err)
			}
		}
		for range changes { // w's events are queued too
			nextEvent(t, keep)
		}
		expectEvents(t, w, changed(path)) // from w's goroutine, parked on it
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if ev, ok := <-w.Events(); ok {
			t.Fatalf("round %d: event %+v received after Close returned", round, ev)
		}
	}
}

// AddWatch's ctx bounds the whole call: when it ends while the addWatch is
// unanswered (a slow server), AddWatch returns at once with its error and
// leaves no watch on the server once the server has answered.
func TestAddWatchCtxBoundsTheCall(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(9*time.Second))
	path := testRoot(t)
	const oneWay, bound = 600 * time.Millisecond, 200 * time.Millisecond
	p.SetLatency(oneWay)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	start := time.Now()
	w, err := c.AddWatch(ctx, path, framework.WatchPersistent)
	took := time.Since(start)
	if err == nil {
		w.Close(testCtx(t))
		t.Fatalf("AddWatch answered within %v through a round trip of %v", took, 2*oneWay)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AddWatch = %v, want the ctx's error", err)
	}
	// The reply comes a round trip after the request; past it, the call
	// waited for it.
	if took >= 2*oneWay {
		t.Fatalf("AddWatch with a ctx of %v returned after %v, once the server had answered", bound, took)
	}
	p.SetLatency(0)
	zktest.Eventually(t, testWait, "no session watching "+path, func() bool { return watchers(t, srv, path) == 0 })
}
