package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A slow connection state listener of the same client delays the cache's
// notice of a suspension past the reconnect, so that the recursive watch's
// reset (and the cache's reload) comes before it. Changes the watch reports
// while the late suspension stands are still read once the reconnect is
// reported: the cache ends equal to the server's tree.
func TestCuratorCacheReadsChangesNotifiedDuringALateSuspension(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	writer := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(srv.SessionOutlastingRestart(4*time.Second)))
	ctx := testCtx(t)
	const root = "/late"
	for _, n := range []string{root + "/a", root + "/b"} {
		_, err := writer.Create(ctx, n, []byte("v0"), framework.CreatingParentsIfNeeded())
		must(t, err)
	}
	// Called before the cache's listener, on the same goroutine: holds each
	// notice until released.
	releaseSuspended, releaseReconnected := make(chan struct{}), make(chan struct{})
	released := func(ch chan struct{}) {
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
	defer released(releaseSuspended)
	defer released(releaseReconnected)
	c.Listen(func(s framework.ConnectionState) {
		switch s {
		case framework.Suspended:
			<-releaseSuspended
		case framework.Reconnected:
			<-releaseReconnected
		}
	})
	cc, replayed := startReplayed(t, c, root, cache.RecursiveWatch)
	// Called after the cache's listener: the cache has been told.
	toldSuspended := make(chan struct{}, 1)
	c.Listen(func(s framework.ConnectionState) {
		if s == framework.Suspended {
			select {
			case toldSuspended <- struct{}{}:
			default:
			}
		}
	})
	// A handle sharing the cache's watch: its events come with the cache's.
	w, err := c.AddWatch(ctx, root, framework.WatchPersistentRecursive)
	must(t, err)
	defer w.Close(context.Background())

	p.Sever() // the client reconnects at once; the cache's watch is set again
	_, err = writer.SetData(ctx, root+"/a", []byte("before the suspension is told"), -1)
	must(t, err)
	awaitReplayedTree(t, writer, root, cc, replayed)

	released(releaseSuspended)
	select {
	case <-toldSuspended:
	case <-time.After(10 * time.Second):
		t.Fatal("the cache was not told of the suspension within 10 s")
	}
	_, err = writer.SetData(ctx, root+"/b", []byte("while the suspension stands"), -1)
	must(t, err)
	_, err = writer.Create(ctx, root+"/c", []byte("v0"))
	must(t, err)
	for seen := 0; seen < 2; { // the watch has delivered both changes
		select {
		case ev := <-w.Events():
			if !ev.Reset && (ev.Path == root+"/b" || ev.Path == root+"/c") {
				seen++
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the watch did not report the changes within 10 s")
		}
	}
	released(releaseReconnected)
	awaitReplayedTree(t, writer, root, cc, replayed)
}
