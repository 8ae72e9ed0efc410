package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
)

// treeBench times a TreeCache's initial load of a tree of one root, parents
// parents and children children of each: from Start to the Initialized
// event, on a client connected beforehand. Both sides load the same tree,
// built once.
func treeBench(parents, children int) bench {
	nodes := 1 + parents*(1+children)
	root := "" // built by the first run
	return bench{
		recipe:  "TreeCache: initial load",
		label:   fmt.Sprintf("%d nodes", nodes),
		slug:    "tree",
		metrics: []metric{{key: "load_ms", header: "load ms", format: "%.0f"}},
		run: func(ctx context.Context, e *env, impl, _ string) (sample, error) {
			if root == "" {
				r := fmt.Sprintf("%s/tree-%d", e.root, nodes)
				if err := buildTree(ctx, e.client, r, parents, children); err != nil {
					return nil, fmt.Errorf("build the tree %s: %w", r, err)
				}
				root = r
			}
			var loaded int64
			var took time.Duration
			if impl == implCurator {
				f, err := e.curator.do(ctx, "RESULT", "treecache", root, e.connect)
				if err != nil {
					return nil, err
				}
				var nanos int64
				if err := fields(f, map[string]*int64{"nodes": &loaded, "nanos": &nanos}); err != nil {
					return nil, err
				}
				took = time.Duration(nanos)
			} else {
				c, err := connect(ctx, e.connect, e.sessionTimeout)
				if err != nil {
					return nil, err
				}
				defer c.Close()
				if took, loaded, err = loadTree(ctx, c, root); err != nil {
					return nil, err
				}
			}
			if loaded != int64(nodes) {
				return nil, fmt.Errorf("the cache loaded %d nodes, not %d", loaded, nodes)
			}
			return sample{"load_ms": ms(took.Seconds()), "nodes": float64(loaded)}, nil
		},
	}
}

// loadTree starts a TreeCache of root on c and returns the time until its
// Initialized event and the nodes it added before.
func loadTree(ctx context.Context, c *framework.Client, root string) (time.Duration, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tc, err := cache.NewTreeCache(c, root)
	if err != nil {
		return 0, 0, err
	}
	defer tc.Close()
	began := time.Now()
	if err := tc.Start(ctx); err != nil {
		return 0, 0, err
	}
	var added int64
	for {
		select {
		case ev := <-tc.Events():
			switch ev.Type {
			case cache.NodeAdded:
				added++
			case cache.Initialized:
				return time.Since(began), added, nil
			}
		case <-ctx.Done():
			return 0, added, fmt.Errorf("TreeCache of %s: not initialized after %d nodes: %w", root, added, ctx.Err())
		}
	}
}

// buildTree creates root with parents children of children each, one
// transaction per parent.
func buildTree(ctx context.Context, c *framework.Client, root string, parents, children int) error {
	if _, err := c.Create(ctx, root, nil, framework.CreatingParentsIfNeeded()); err != nil {
		return err
	}
	for p := range parents {
		parent := root + "/p" + strconv.Itoa(p)
		ops := []any{&zk.CreateRequest{Path: parent, Data: []byte("parent")}}
		for i := range children {
			ops = append(ops, &zk.CreateRequest{Path: parent + "/c" + strconv.Itoa(i), Data: []byte("child")})
		}
		if _, err := c.Transaction(ctx, ops...); err != nil {
			return err
		}
	}
	return nil
}
