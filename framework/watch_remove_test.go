package framework_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// A server older than 3.9 refuses removeWatches with a persistent watcher
// type once per connection: the next removal on that connection goes its way
// at once, one removeWatches request instead of a refused one first.
func TestWatchRemovalRemembersAnOldServerPerConnection(t *testing.T) {
	srv := sharedServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr())
	root := testRoot(t)
	first := addWatch(t, c, root+"/a", framework.WatchPersistent)
	second := addWatch(t, c, root+"/b", framework.WatchPersistentRecursive)
	const removeWatches = zktest.Op(18)
	for i, w := range []*framework.PersistentWatch{first, second} {
		p.ResetCounts()
		if err := w.Close(testCtx(t)); err != nil {
			t.Fatalf("Close of watch %d: %v", i, err)
		}
		n := p.RequestCount(removeWatches)
		if n < 1 || n > 2 || i == 1 && n != 1 {
			t.Fatalf("Close of watch %d sent %d removeWatches requests, want %s", i, n, map[int]string{0: "1 or 2", 1: "1"}[i])
		}
	}
	for _, path := range []string{root + "/a", root + "/b"} {
		if n := watchers(t, srv, path); n != 0 {
			t.Fatalf("sessions watching %s = %d, want 0", path, n)
		}
	}
}
