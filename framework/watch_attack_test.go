package framework_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
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
	const oneWay, bound = time.Second, 200 * time.Millisecond
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

// A one-shot watch of go-zookeeper's and a persistent watch on one path,
// across a cut connection (the persistent watch set again in the exchange,
// the one-shot watch by go-zookeeper's SetWatches behind it): the
// persistent watch reports the next change, its Close then leaves the
// one-shot watch, which fires on the change after, and nothing stays on
// the server.
func TestWatchCloseAfterReconnectKeepsOneShotWatch(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(3*time.Second)) // go-zookeeper redials after a second
	other := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := c.Create(ctx, path, nil); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	w := addWatch(t, c, path, framework.WatchPersistent)
	_, _, data, err := c.GetDataW(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, kids, err := c.ChildrenW(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	p.Sever()
	awaitReset(t, w)
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exists(ctx, "/"); err != nil { // behind SetWatches
		t.Fatal(err)
	}
	if _, err := other.Create(ctx, path+"/child", nil); err != nil {
		t.Fatal(err)
	}
	nextChange(t, w, childrenChanged(path))
	oneShot(t, kids, zk.EventNodeChildrenChanged)
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := other.SetData(ctx, path, []byte("after Close"), -1); err != nil {
		t.Fatal(err)
	}
	oneShot(t, data, zk.EventNodeDataChanged)
	zktest.Eventually(t, testWait, "no session watching "+path, func() bool { return watchers(t, srv, path) == 0 })
}

// Handles on one path and mode closed all at once: one of them removes the
// server's watch, and the client holds nothing of it after (the other mode
// may be set on the path).
func TestWatchHandlesClosedConcurrently(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	modes := []framework.AddWatchMode{framework.WatchPersistent, framework.WatchPersistentRecursive}
	for round := range 10 {
		mode := modes[round%2]
		var handles []*framework.PersistentWatch
		for range 3 {
			handles = append(handles, addWatch(t, c, path, mode))
		}
		errs := make(chan error, len(handles))
		for _, h := range handles {
			go func() { errs <- h.Close(ctx) }()
		}
		for range handles {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: Close: %v", round, err)
			}
		}
		if n := watchers(t, srv, path); n != 0 {
			t.Fatalf("round %d: sessions watching %s after every Close = %d, want 0", round, path, n)
		}
	}
}

// The replies to addWatch and removeWatches, sent among many requests of
// go-zookeeper's in flight on a slow connection that is cut now and then,
// each reach their own request: every read returns its own node's data
// (or a connection loss), every AddWatch and Close succeeds or fails with a
// connection loss, and no watch is left on the server.
func TestWatchRepliesAmongManyRequests(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr(), framework.WithSessionTimeout(3*time.Second))
	ctx := testCtx(t)
	root := testRoot(t)
	const nodes, readers, rounds = 8, 8, 30
	for i := range nodes {
		n := fmt.Sprintf("%s/n%d", root, i)
		if _, err := c.Create(ctx, n, []byte(n), framework.CreatingParentsIfNeeded()); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatal(err)
		}
	}
	p.SetLatency(2 * time.Millisecond)
	stop := make(chan struct{})
	failed := make(chan error, readers+1)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				n := fmt.Sprintf("%s/n%d", root, (r+i)%nodes)
				data, _, err := c.GetData(ctx, n)
				switch {
				case errors.Is(err, zk.ErrConnectionClosed):
				case err != nil:
					failed <- fmt.Errorf("GetData(%s): %w", n, err)
					return
				case string(data) != n:
					failed <- fmt.Errorf("GetData(%s) = %q: another request's reply", n, data)
					return
				}
			}
		}()
	}
	for round := range rounds {
		if round%10 == 9 {
			p.Sever()
		}
		n := fmt.Sprintf("%s/n%d", root, round%nodes)
		w, err := c.AddWatch(ctx, n, framework.AddWatchMode(round%2))
		if err != nil {
			t.Fatalf("round %d: AddWatch(%s): %v", round, n, err)
		}
		if err := w.Close(ctx); err != nil && !errors.Is(err, zk.ErrConnectionClosed) {
			t.Fatalf("round %d: Close: %v", round, err)
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-failed:
		t.Fatal(err)
	default:
	}
	p.SetLatency(0)
	zktest.Eventually(t, testWait, "no watch left below "+root, func() bool {
		counts, err := srv.WatchCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range nodes {
			if counts[fmt.Sprintf("%s/n%d", root, i)] != 0 {
				return false
			}
		}
		return true
	})
}
