package main

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// cacheLimit bounds a cache's load, and its wait for a burst's changes, on
// both sides (the helper's CACHE_WAIT_SECONDS).
const cacheLimit = 2 * time.Minute

// shortKey marks a sample of a Curator cache that did not load the whole
// tree: the nodes it held (-1 when not measured for that reason).
const shortKey = "short"

// writerKey is the sample key of the burst's writer's own rate: writes per
// second from its first write to its last reply, the bound of any cache's
// rate; lagKey, of the milliseconds from that reply to the cache's consumer
// seeing the last change (negative: it saw the change before the writer's
// reply came back).
const (
	writerKey = "writer_s"
	lagKey    = "lag_ms"
)

// cacheName is the recipe's name in the tables.
func cacheName(kind string) string {
	switch kind {
	case kindTree:
		return "TreeCache"
	case kindCuratorOneShot:
		return "CuratorCache on one-shot watches"
	}
	return "CuratorCache"
}

// cacheLoadBench times the initial load of a cache of kind over the tree of
// shape s, from Start to the Initialized event on a client connected
// beforehand, and the heap the loaded cache holds per node: on each side
// the heap in use after a full collection, with the cache loaded and kept
// alive, less the same before the cache was built.
func cacheLoadBench(kind string, s treeShape, t *trees) bench {
	return bench{
		recipe: cacheName(kind) + ": initial load, and heap per cached node",
		label:  fmt.Sprintf("%d nodes", s.nodes()),
		slug:   fmt.Sprintf("%s-load-%d", kind, s.nodes()),
		metrics: []metric{
			{key: "load_ms", header: "load ms", format: "%.0f"},
			{key: "bytes_node", header: "bytes/node", format: "%.0f", ratio: true},
		},
		run: func(ctx context.Context, e *env, impl, _ string) (sample, error) {
			root, err := t.root(ctx, e, s)
			if err != nil {
				return nil, err
			}
			var loaded, nanos, bytes int64
			if impl == implCurator {
				f, err := e.curator.do(ctx, "RESULT", "cacheload", javaKind(kind), root, e.connect)
				if err != nil {
					return nil, err
				}
				if err := fields(f, map[string]*int64{"nodes": &loaded, "nanos": &nanos, "bytes": &bytes}); err != nil {
					return nil, err
				}
			} else if loaded, nanos, bytes, err = loadOurs(ctx, e, kind, root); err != nil {
				return nil, err
			}
			if impl == implCurator && curatorKind(kind) && loaded < int64(s.nodes()) {
				// Curator 5.4's CuratorCache counts its reads in flight with a
				// Phaser, which takes at most 65,535 parties: past that its
				// reads fail, and it reports itself initialized without
				// those nodes (CURATOR-690, fixed in Curator 5.6.0). No
				// figure, then, but the count, for the table's note.
				fmt.Fprintf(e.log, "Curator's CuratorCache loaded %d of %d nodes before its initialized event\n", loaded, s.nodes())
				t.markShort(s)
				return sample{shortKey: float64(loaded)}, nil
			}
			if loaded != int64(s.nodes()) {
				return nil, fmt.Errorf("the cache loaded %d nodes, not %d", loaded, s.nodes())
			}
			out := sample{"load_ms": float64(nanos) / 1e6, "bytes_node": float64(bytes) / float64(loaded), "nodes": float64(loaded)}
			if impl == implOurs && oneShotKind(kind) {
				if out[watchKey], err = t.watchFloor(ctx, e, root, s); err != nil {
					return nil, fmt.Errorf("go-zookeeper's watches alone: %w", err)
				}
			}
			return out, nil
		},
	}
}

// loadOurs loads our cache of kind over root on a client of its own and
// returns the nodes added, the nanoseconds from Start to Initialized, and
// the growth of the heap in use (after runtime.GC) that the loaded cache
// accounts for.
func loadOurs(ctx context.Context, e *env, kind, root string) (loaded, nanos, bytes int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, cacheLimit)
	defer cancel()
	cl, err := connect(ctx, e.connect, e.sessionTimeout)
	if err != nil {
		return 0, 0, 0, err
	}
	defer cl.Close()
	c := newCounts(0)
	before := heapInUse()
	began := time.Now()
	ca, stop, err := startCache(ctx, kind, cl, root, c)
	if err != nil {
		return 0, 0, 0, err
	}
	defer stop()
	if err := awaitInitialized(ctx, kind, root, c); err != nil {
		return 0, 0, 0, err
	}
	took := time.Since(began)
	after := heapInUse()
	if err := writeHeapProfile(e.memProfile); err != nil {
		return 0, 0, 0, err
	}
	runtime.KeepAlive(ca)
	return c.added.Load(), took.Nanoseconds(), int64(after) - int64(before), nil
}

// heapInUse returns the bytes of live heap objects after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// cacheBurstBench times how fast a loaded cache of kind over the tree of
// shape s follows a write burst: writes setData calls on as many distinct
// leaves, made by a client of this process's own (the same writer for both
// sides, builders writes in flight), from the first write to the cache's
// consumer having seen the last of the changes.
func cacheBurstBench(kind string, s treeShape, writes int, t *trees) bench {
	return bench{
		recipe:  cacheName(kind) + ": change events per second under a write burst",
		label:   fmt.Sprintf("%d nodes, %d writes", s.nodes(), writes),
		slug:    fmt.Sprintf("%s-burst-%d", kind, s.nodes()),
		metrics: []metric{{key: "events_s", header: "events/s", format: "%.0f", higher: true}},
		run: func(ctx context.Context, e *env, impl, _ string) (sample, error) {
			if impl == implCurator && curatorKind(kind) && t.isShort(s) {
				return sample{shortKey: -1}, nil // it does not hold the tree
			}
			root, err := t.root(ctx, e, s)
			if err != nil {
				return nil, err
			}
			writer, err := connect(ctx, e.connect, e.sessionTimeout)
			if err != nil {
				return nil, err
			}
			defer writer.Close()
			var began, wrote time.Time
			burst := func() error {
				began = time.Now()
				err := writeBurst(ctx, writer, root, s, writes)
				wrote = time.Now()
				return err
			}
			var changed, last int64
			if impl == implCurator {
				f, err := e.curator.doArmed(ctx, burst, "cacheburst", javaKind(kind), root, e.connect, fmt.Sprint(writes))
				if err != nil {
					return nil, err
				}
				if err := fields(f, map[string]*int64{"changed": &changed, "last": &last}); err != nil {
					return nil, err
				}
			} else if changed, last, err = burstOurs(ctx, e, kind, root, writes, burst); err != nil {
				return nil, err
			}
			if changed != int64(writes) {
				return nil, fmt.Errorf("the cache saw %d changes, not %d", changed, writes)
			}
			seen := time.Unix(0, last)
			return sample{
				"events_s": float64(writes) / seen.Sub(began).Seconds(), "changed": float64(changed),
				writerKey: float64(writes) / wrote.Sub(began).Seconds(), lagKey: float64(seen.Sub(wrote)) / 1e6,
			}, nil
		},
	}
}

// burstOurs loads our cache of kind over root, runs burst and returns the
// changes the cache's consumer saw and when (unix nanos) it saw the last.
func burstOurs(ctx context.Context, e *env, kind, root string, writes int, burst func() error) (changed, last int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, cacheLimit)
	defer cancel()
	cl, err := connect(ctx, e.connect, e.sessionTimeout)
	if err != nil {
		return 0, 0, err
	}
	defer cl.Close()
	c := newCounts(writes)
	_, stop, err := startCache(ctx, kind, cl, root, c)
	if err != nil {
		return 0, 0, err
	}
	defer stop()
	if err := awaitInitialized(ctx, kind, root, c); err != nil {
		return 0, 0, err
	}
	if err := burst(); err != nil {
		return 0, 0, err
	}
	select {
	case <-c.allChanged:
		return c.changed.Load(), c.last.Load(), nil
	case <-ctx.Done():
		return c.changed.Load(), 0, fmt.Errorf("%s cache of %s: %d of %d changes: %w", kind, root, c.changed.Load(), writes, ctx.Err())
	}
}
