package watch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/recipes/watch"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Close while Start waits for a server that does not answer returns within
// its ctx, the Start ends with ErrClosed and calls no listener, and no
// watch is left once the server answers again.
func TestPersistentWatcherCloseEndsAStartUnderWay(t *testing.T) {
	srv := shared.Server(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr())
	const path = "/TestPersistentWatcherCloseEndsAStartUnderWay"
	w, err := watch.NewPersistentWatcher(c, path, true)
	if err != nil {
		t.Fatal(err)
	}
	r := listen(w)
	p.Pause()
	defer p.Resume()
	started := make(chan error, 1)
	go func() { started <- w.Start(context.Background()) }()
	zktest.Eventually(t, testWait, "the addWatch sent", func() bool { return p.RequestCount(zktest.Op(106)) > 0 })

	const bound = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- w.Close(ctx) }()
	select {
	case err := <-closed:
		t.Logf("Close during Start: %v", err)
	case <-time.After(bound + 5*time.Second): // slack for a loaded machine; the Start waits far longer
		t.Fatalf("Close with a ctx of %v still waits for the Start after %v", bound, bound+5*time.Second)
	}
	select {
	case err := <-started:
		if !errors.Is(err, watch.ErrClosed) {
			t.Fatalf("Start ended by Close = %v, want ErrClosed", err)
		}
	case <-time.After(testWait):
		t.Fatal("the Start did not end after Close")
	}
	p.Resume()
	zktest.Eventually(t, testWait, "no watch on "+path, func() bool {
		counts, err := srv.WatchCounts(zktest.Context(t, testWait))
		return err == nil && counts[path] == 0
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.got) != 0 {
		t.Fatalf("listeners called though the watcher closed during its Start: %q", r.got)
	}
}
