package cache_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// replayer applies a cache's events, on a goroutine, to a tree that starts
// empty, and remembers the first event it refused.
type replayer struct {
	mu   sync.Mutex
	tree map[string]cache.Node
	err  error
	done chan struct{}
}

func replay(events <-chan cache.Event) *replayer {
	r := &replayer{tree: map[string]cache.Node{}, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for e := range events {
			r.mu.Lock()
			if err := apply(r.tree, e); err != nil && r.err == nil {
				r.err = err
			}
			r.mu.Unlock()
		}
	}()
	return r
}

// matches reports whether the replayed tree is want, failing the test once
// an event was refused.
func (r *replayer) matches(t *testing.T, want map[string]cache.Node) bool {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		t.Fatalf("replaying the events: %v", r.err)
	}
	return sameTree(r.tree, want)
}

// wait waits for the events channel to close and returns the first event
// refused.
func (r *replayer) wait() error {
	<-r.done
	return r.err
}

// A tree cache and a node cache follow a writer while the replies to their
// reads, their existence checks and their watch renewals are lost (the
// server did the work, the connection breaks), on a link with latency. At
// the end both hold what the server holds, and replaying their events gives
// the same.
func TestCachesThroughLostRepliesAndLatency(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	writer := zkclient.New(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(10*time.Second))
	ctx := testCtx(t)
	const root, flag = "/lost", "/lostflag"
	_, err := writer.Create(ctx, root, nil)
	must(t, err)
	tc := startTree(t, c, root)
	nc, err := cache.NewNodeCache(c, flag)
	must(t, err)
	defer nc.Close()
	must(t, nc.Start(ctx))
	treeEvents, flagEvents := replay(tc.Events()), replay(nc.Events())

	p.SetLatency(2 * time.Millisecond)
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"a", "b", "c"}
	write := func(i int) {
		parts := []string{root}
		for range 1 + rng.IntN(3) {
			parts = append(parts, names[rng.IntN(len(names))])
		}
		path := strings.Join(parts, "/")
		var err error
		switch rng.IntN(4) {
		case 0:
			_, err = writer.Create(ctx, path, []byte(fmt.Sprint(i)), framework.CreatingParentsIfNeeded())
		case 1:
			_, err = writer.SetData(ctx, path, []byte(fmt.Sprint(i)), -1)
		case 2:
			err = writer.Delete(ctx, path, framework.DeletingChildrenIfNeeded())
		default:
			if _, err = writer.Create(ctx, flag, []byte(fmt.Sprint(i))); errors.Is(err, zk.ErrNodeExists) {
				err = writer.Delete(ctx, flag)
			}
		}
		if err != nil && !errors.Is(err, zk.ErrNodeExists) && !errors.Is(err, zk.ErrNoNode) {
			t.Fatalf("write %d on %s: %v", i, path, err)
		}
	}
	rounds := [][]zktest.Op{
		{zktest.OpGetData}, {zktest.OpGetChildren2}, {zktest.OpExists}, {zktest.OpSetWatches},
		{zktest.OpGetData}, {zktest.OpGetChildren2}, {zktest.OpExists}, {zktest.OpSetWatches}, {},
	}
	i := 0
	for r, ops := range rounds {
		lost := p.LostReplies()
		p.LoseNextReply(ops...)
		for n := 0; p.LostReplies() == lost; n++ {
			// Changes while the cache is connected, so that it reads.
			zktest.Eventually(t, 20*time.Second, "the cache's client connected", func() bool { return c.State().IsConnected() })
			if n > 0 && n%100 == 0 {
				// An arming whose request was cut off with its connection (a
				// reconnect under load) loses nothing and is spent: arm again.
				if n == 200 { // no such request came: a reconnect sends the watches again
					p.Sever()
				}
				p.LoseNextReply(ops...)
			}
			if n > 400 {
				t.Fatalf("round %d: no %v reply lost after %d writes", r, ops, n)
			}
			write(i)
			i++
		}
	}
	p.SetLatency(0)

	want := serverTree(t, writer, root)
	zktest.Eventually(t, 30*time.Second, "the tree cache to match the server", func() bool {
		return sameTree(nodesByPath(tc.Snapshot()), want)
	})
	wantFlag, flagStat, err := writer.GetData(ctx, flag)
	flagExists := err == nil
	if !flagExists && !errors.Is(err, zk.ErrNoNode) {
		t.Fatal(err)
	}
	zktest.Eventually(t, 30*time.Second, "the node cache to match the server", func() bool {
		n, ok := nc.Current()
		return ok == flagExists && (!ok || bytes.Equal(n.Data, wantFlag) && n.Stat.Czxid == flagStat.Czxid && n.Stat.Version == flagStat.Version)
	})
	zktest.Eventually(t, 30*time.Second, "replaying the tree cache's events to give the server's tree", func() bool {
		return treeEvents.matches(t, want)
	})
	wantFlagTree := map[string]cache.Node{}
	if flagExists {
		wantFlagTree[flag] = cache.Node{Path: flag, Data: wantFlag, Stat: *flagStat}
	}
	zktest.Eventually(t, 30*time.Second, "replaying the node cache's events to give the server's node", func() bool {
		return flagEvents.matches(t, wantFlagTree)
	})
	must(t, tc.Close())
	must(t, nc.Close())
	must(t, treeEvents.wait())
	must(t, flagEvents.wait())
	t.Logf("%d writes, %d replies lost, %d nodes at the end", i, p.LostReplies(), len(want))
}
