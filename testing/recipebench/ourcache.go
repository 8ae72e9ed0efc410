package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
)

// The caches compared, as the -only groups and the helper's commands name
// them.
const (
	kindTree           = "tree"            // TreeCache
	kindCurator        = "curator"         // CuratorCache (a recursive watch on ZooKeeper 3.6+)
	kindCuratorOneShot = "curator-oneshot" // CuratorCache made WithOneShotWatches
)

// curatorKind reports whether kind is a CuratorCache of ours; Curator's side
// runs its own CuratorCache for either.
func curatorKind(kind string) bool { return kind == kindCurator || kind == kindCuratorOneShot }

// javaKind is the cache the helper runs beside ours of kind.
func javaKind(kind string) string {
	if curatorKind(kind) {
		return kindCurator
	}
	return kind
}

// oneShotKind reports whether our cache of kind runs on one-shot watches,
// so that go-zookeeper records two watches a node for it.
func oneShotKind(kind string) bool { return kind != kindCurator }

// counts is what a cache's consumer saw, as the helper's Counts: nodes
// added, data changes, and when the last awaited change came.
type counts struct {
	added       atomic.Int64
	changed     atomic.Int64
	want        int64 // the changes awaited; set before the cache starts
	initialized chan struct{}
	allChanged  chan struct{}
	last        atomic.Int64 // unix nanos of the change that made want
	once        sync.Once
}

func newCounts(want int) *counts {
	return &counts{want: int64(want), initialized: make(chan struct{}), allChanged: make(chan struct{})}
}

func (c *counts) add() { c.added.Add(1) }

func (c *counts) change() {
	if c.changed.Add(1) == c.want {
		c.last.Store(time.Now().UnixNano())
		close(c.allChanged)
	}
}

func (c *counts) initialize() { c.once.Do(func() { close(c.initialized) }) }

// Event and Initialized make counts a CuratorCache listener.
func (c *counts) Event(t cache.ChangeType, _, _ cache.Node) {
	switch t {
	case cache.NodeCreated:
		c.add()
	case cache.NodeChanged:
		c.change()
	}
}

func (c *counts) Initialized() { c.initialize() }

// startCache starts a cache of kind of root on cl whose consumer feeds to,
// and returns it (nil on error) and the function that closes it and waits
// for its consumer to end.
func startCache(ctx context.Context, kind string, cl *framework.Client, root string, to *counts) (any, func(), error) {
	switch kind {
	case kindTree:
		tc, err := cache.NewTreeCache(cl, root)
		if err != nil {
			return nil, nil, err
		}
		consumed := make(chan struct{})
		go func() {
			defer close(consumed)
			for ev := range tc.Events() { // closes on Close
				switch ev.Type {
				case cache.NodeAdded:
					to.add()
				case cache.NodeUpdated:
					to.change()
				case cache.Initialized:
					to.initialize()
				}
			}
		}()
		stop := func() { tc.Close(); <-consumed }
		if err := tc.Start(ctx); err != nil {
			stop()
			return nil, nil, err
		}
		return tc, stop, nil
	case kindCurator, kindCuratorOneShot:
		var opts []cache.Option
		if kind == kindCuratorOneShot {
			opts = append(opts, cache.WithOneShotWatches())
		}
		cc, err := cache.NewCuratorCache(cl, root, opts...)
		if err != nil {
			return nil, nil, err
		}
		cc.Listen(to)
		if err := cc.Start(ctx); err != nil {
			cc.Close()
			return nil, nil, err
		}
		return cc, func() { cc.Close() }, nil
	}
	return nil, nil, fmt.Errorf("unknown cache kind %q", kind)
}

// awaitInitialized waits for the Initialized of a started cache.
func awaitInitialized(ctx context.Context, kind, root string, c *counts) error {
	select {
	case <-c.initialized:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s cache of %s: not initialized after %d nodes: %w", kind, root, c.added.Load(), ctx.Err())
	}
}
