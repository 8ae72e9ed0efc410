package main

import (
	"context"
	"runtime"
	"strconv"
)

// watchKey is the sample key of the heap per node that go-zookeeper alone
// holds for the watches of a cache over the tree: measured once per tree
// (trees.watchFloor) and added to each of zkcurator's load samples.
const watchKey = "watch_bytes_node"

// watchesInFlight is how many watches watchFloor sets at once.
const watchesInFlight = 32

// watchFloor returns the heap per node that go-zookeeper holds for a data
// watch and a child watch on every node of the tree of shape s at root: the
// two one-shot watches every node of a cache on go-zookeeper v1.0.4
// carries, and so the least such a cache can hold per node. It measures as
// loadOurs does, on a client of its own, with the paths made beforehand (a
// cache shares them with its own record of the nodes).
func watchFloor(ctx context.Context, e *env, root string, s treeShape) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, cacheLimit)
	defer cancel()
	cl, err := connect(ctx, e.connect, e.sessionTimeout)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	paths := s.paths(root)
	before := heapInUse()
	err = inParallel(ctx, len(paths), watchesInFlight, func(ctx context.Context, i int) error {
		if _, _, _, err := cl.GetDataW(ctx, paths[i]); err != nil {
			return err
		}
		_, _, _, err := cl.ChildrenW(ctx, paths[i])
		return err
	})
	if err != nil {
		return 0, err
	}
	after := heapInUse()
	runtime.KeepAlive(paths)
	runtime.KeepAlive(cl)
	return float64(int64(after)-int64(before)) / float64(len(paths)), nil
}

// paths returns the path of every node of the tree of shape s at root.
func (s treeShape) paths(root string) []string {
	out := make([]string, 0, s.nodes())
	out = append(out, root)
	for p := range s.parents {
		parent := root + "/p" + strconv.Itoa(p)
		out = append(out, parent)
		for c := range s.children {
			out = append(out, parent+"/c"+strconv.Itoa(c))
		}
	}
	return out
}
