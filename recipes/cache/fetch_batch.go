package cache

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// Under a persistent recursive watch a refresh reads its nodes in batches,
// each batch in two multiRead requests (ZooKeeper 3.6+, as the watch is): the
// data of every node of the batch, then the children of those whose Stat
// counts any. A node whose Stat counts none is not listed: the watch, set
// before the read, reports every child created after it, so its listing is
// known to be empty. A server without multiRead has the nodes read one
// request at a time instead. A 10,001-node load took 0.04 to 0.06 of
// Curator's CuratorCache's time so, against 1.0 to 1.4 with a getData and a
// getChildren of its own for every node (testing/recipebench,
// docs/performance.md); the two bounds were not tuned further.
const (
	// batchReads bounds the nodes of one batch: a request of about 100
	// bytes a node, a reply of their data.
	batchReads = 100
	// batchReaders bounds the batches read at once.
	batchReaders = 4
)

// batched reports whether the refresh reads its nodes in batches.
func (f *fetcher) batched() bool { return f.e.watches.recursive() }

// readBatch reads the nodes of rs, as read does one: their data, then the
// children of those that have any (and are above maxDepth, and not read
// for their data alone).
func (f *fetcher) readBatch(rs []*read) error {
	e := f.e
	paths := make([]string, len(rs))
	for i, r := range rs {
		paths[i] = r.path
	}
	found, err := f.readMany(paths, false)
	if err != nil {
		return err
	}
	var listing []*read
	for i, r := range rs {
		res := found[i]
		if errors.Is(res.Err, framework.ErrDecompression) && res.Stat != nil {
			e.cfg.log.Warn("cache: node data does not decompress; holding the node without data",
				zap.String("path", r.path), zap.Error(res.Err))
			e.c.ReportError(fmt.Errorf("cache: node %q held without data: %w", r.path, res.Err))
			res.Data, res.Err = nil, nil
		}
		switch {
		case errors.Is(res.Err, zk.ErrNoNode):
			r.absent = true
			continue
		case res.Err != nil:
			return res.Err
		}
		r.data, r.stat = res.Data, res.Stat
		if r.dataOnly || e.cfg.maxDepth >= 0 && e.depth(r.path) >= e.cfg.maxDepth {
			continue
		}
		if res.Stat.NumChildren == 0 {
			r.listed = true // none at the read; the watch reports any created since
			continue
		}
		listing = append(listing, r)
	}
	if len(listing) == 0 {
		return nil
	}
	paths = paths[:0]
	for _, r := range listing {
		paths = append(paths, r.path)
	}
	if found, err = f.readMany(paths, true); err != nil {
		return err
	}
	for i, r := range listing {
		if err := f.listed(r, found[i].Children, found[i].Err); err != nil {
			return err
		}
	}
	return nil
}

// readMany reads the data (or, with children, the children) of the nodes
// at paths, in one multiRead, or one request a node on a server without it.
func (f *fetcher) readMany(paths []string, children bool) ([]framework.ReadResult, error) {
	e := f.e
	if !e.noMultiRead.Load() {
		ops := make([]framework.ReadOp, len(paths))
		for i, p := range paths {
			ops[i] = framework.GetDataOp(p)
			if children {
				ops[i] = framework.ChildrenOp(p)
			}
		}
		found, err := e.c.MultiRead(f.ctx, ops...)
		if errors.Is(err, framework.ErrInvalidArgument) && len(paths) > 1 {
			// Long paths put the request above ZooKeeper's limit (refused
			// before any request): read the batch in two halves.
			return f.readHalves(paths, children)
		}
		if !errors.Is(err, framework.ErrMultiReadUnsupported) {
			return found, err
		}
		e.noMultiRead.Store(true)
		e.cfg.log.Info("cache: the server has no multiRead; reading one node a request", zap.Error(err))
	}
	found := make([]framework.ReadResult, len(paths))
	for i, p := range paths {
		r := &found[i]
		if children {
			r.Children, r.Err = e.watches.readChildren(f.ctx, p)
		} else {
			r.Data, r.Stat, r.Err = e.watches.readData(f.ctx, p)
		}
		if err := f.ctx.Err(); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// readHalves is readMany of the two halves of paths, one after the other.
func (f *fetcher) readHalves(paths []string, children bool) ([]framework.ReadResult, error) {
	half := len(paths) / 2
	first, err := f.readMany(paths[:half], children)
	if err != nil {
		return nil, err
	}
	second, err := f.readMany(paths[half:], children)
	if err != nil {
		return nil, err
	}
	return append(first, second...), nil
}
