package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// treeShape is a cached tree: a root, parents children of it and children
// children of each of those (the leaves).
type treeShape struct{ parents, children int }

// shapeFor returns the shape closest to nodes nodes with children leaves
// per parent (10,000 and 99: 100 parents, 10,001 nodes).
func shapeFor(nodes, children int) treeShape {
	return treeShape{parents: max(1, (nodes-1+(children+1)/2)/(children+1)), children: children}
}

func (s treeShape) nodes() int  { return 1 + s.parents*(1+s.children) }
func (s treeShape) leaves() int { return s.parents * s.children }

// leaf returns the path of the i-th leaf below root, the leaves taken
// parent by parent in turn, so that neighbouring writes hit different
// parents.
func (s treeShape) leaf(root string, i int) string {
	return root + "/p" + strconv.Itoa(i%s.parents) + "/c" + strconv.Itoa(i/s.parents)
}

// trees builds each shape's tree once, on first use, for every bench that
// caches it; a bench's runs only change the data of its leaves.
type trees struct {
	mu    sync.Mutex
	roots map[treeShape]string
	// short are the shapes whose tree Curator's CuratorCache did not load
	// whole (CURATOR-690: Curator 5.4 loses every read past 65,535 in
	// flight); its burst is not measured there.
	short map[treeShape]bool
	// floors are the watchFloor of each shape measured so far.
	floors map[treeShape]float64
}

// markShort notes that Curator's CuratorCache did not load the tree of s.
func (t *trees) markShort(s treeShape) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.short == nil {
		t.short = map[treeShape]bool{}
	}
	t.short[s] = true
}

// watchFloor returns the watchFloor of the tree of shape s at root,
// measured on first use only.
func (t *trees) watchFloor(ctx context.Context, e *env, root string, s treeShape) (float64, error) {
	t.mu.Lock()
	v, ok := t.floors[s]
	t.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := watchFloor(ctx, e, root, s)
	if err != nil {
		return 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.floors == nil {
		t.floors = map[treeShape]float64{}
	}
	t.floors[s] = v
	return v, nil
}

// isShort reports whether markShort was called for s.
func (t *trees) isShort(s treeShape) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.short[s]
}

// root returns the root of the tree of shape s, building it below e.root
// first if needed, and logs how long the build took.
func (t *trees) root(ctx context.Context, e *env, s treeShape) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.roots[s]; ok {
		return r, nil
	}
	r := fmt.Sprintf("%s/tree-%d", e.root, s.nodes())
	began := time.Now()
	if err := buildTree(ctx, e.client, r, s); err != nil {
		return "", fmt.Errorf("build the tree %s: %w", r, err)
	}
	fmt.Fprintf(e.log, "built the tree of %d nodes in %v\n", s.nodes(), time.Since(began).Round(time.Millisecond))
	if t.roots == nil {
		t.roots = map[treeShape]string{}
	}
	t.roots[s] = r
	return r, nil
}

// builders is how many transactions buildTree keeps in flight on its
// connection: go-zookeeper pipelines the requests of concurrent callers.
const builders = 16

// buildTree creates root and the tree of shape s below it: one transaction
// per parent (the parent and its children), builders of them in flight.
func buildTree(ctx context.Context, c *framework.Client, root string, s treeShape) error {
	if _, err := c.Create(ctx, root, nil, framework.CreatingParentsIfNeeded()); err != nil {
		return err
	}
	return inParallel(ctx, s.parents, builders, func(ctx context.Context, p int) error {
		parent := root + "/p" + strconv.Itoa(p)
		ops := []any{&zk.CreateRequest{Path: parent, Data: []byte("parent")}}
		for i := range s.children {
			ops = append(ops, &zk.CreateRequest{Path: parent + "/c" + strconv.Itoa(i), Data: []byte("child")})
		}
		_, err := c.Transaction(ctx, ops...)
		return err
	})
}

// inParallel calls do for 0 to n-1 on workers goroutines and returns the
// first error; after one, the calls not yet begun are skipped.
func inParallel(ctx context.Context, n, workers int, do func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(ctx, i); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// writeBurst sets the data of the first n leaves of the tree at root, once
// each, as fast as one connection of its own takes them (builders writes in
// flight), and returns when all are acknowledged.
func writeBurst(ctx context.Context, c *framework.Client, root string, s treeShape, n int) error {
	data := []byte("burst")
	return inParallel(ctx, n, builders, func(ctx context.Context, i int) error {
		_, err := c.SetData(ctx, s.leaf(root, i), data, -1)
		return err
	})
}
