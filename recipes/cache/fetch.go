package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// readsInFlight bounds how many nodes one refresh reads at once under
// one-shot watches, each with its data read and its listing sent together;
// go-zookeeper pipelines them (under a recursive watch, see fetch_batch.go).
// A 10,001-node load took 1.33 to 1.62 times Curator's TreeCache's time at
// 32 nodes with the two reads one after the other, 1.10 to 1.30 at 128, and
// 0.95 to 1.10 at 128 with the two together (testing/recipebench).
const readsInFlight = 128

// read is what the reads of one node found. A reader fills it in and closes
// done; only then does the engine's goroutine look at it.
type read struct {
	path     string
	dataOnly bool // only its data, when the node held is the one read (see top)
	done     chan struct{}

	err    error    // the reads failed: the refresh stops
	absent bool     // the node does not exist
	data   []byte   // the node's data (nil when it did not decompress)
	stat   *zk.Stat // nil when absent
	listed bool     // its children were listed (above maxDepth, unless a data-only read of the node held)
	// vanished: its data was read, but its listing found it deleted.
	vanished bool
	wanted   []string // the children the cache follows, sorted by name
	kids     []*read  // the reads of the wanted children that need reading, in that order
}

func newRead(p string) *read { return &read{path: p, done: make(chan struct{})} }

// fetcher reads the nodes of one refresh ahead of the engine's goroutine,
// which applies what they found in the order the reads were asked for. At
// most readsInFlight readers run, each reading one node at a time and
// queueing its children's reads behind it; no reader waits for another, so
// the bound cannot deadlock.
type fetcher struct {
	e      *engine
	deep   bool
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	todo    []*read // a stack: the next read is the last one, depth first
	readers int
	err     error // the first read that failed
}

// fetch starts reading the tops (and, with deep, every node below them;
// without, only the children the cache does not hold yet and what is below
// them), and returns the tops' reads, in the same order. The caller
// applies the reads through await and must call stop.
func (e *engine) fetch(ctx context.Context, tops []top, deep bool) (*fetcher, []*read) {
	f := &fetcher{e: e, deep: deep}
	f.ctx, f.cancel = context.WithCancel(ctx)
	reads := make([]*read, len(tops))
	for i, t := range tops {
		reads[i] = newRead(t.path)
		reads[i].dataOnly = t.dataOnly && !deep
	}
	f.push(reads)
	return f, reads
}

// stop ends the reads under way and returns once every reader has ended.
func (f *fetcher) stop() {
	f.cancel()
	f.wg.Wait()
}

// await waits until r was read; it returns the error that stops the
// refresh: the first read that failed, or the end of the caller's context.
func (f *fetcher) await(r *read) error {
	select {
	case <-r.done:
		if r.err == nil {
			return nil
		}
	case <-f.ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	return f.ctx.Err()
}

// push queues reads, the first of them to be read first, and starts
// readers for them up to the bound.
func (f *fetcher) push(rs []*read) {
	f.mu.Lock()
	for i := len(rs) - 1; i >= 0; i-- {
		f.todo = append(f.todo, rs[i])
	}
	more := min(len(f.todo), readsInFlight-f.readers)
	if f.batched() {
		more = min((len(f.todo)+batchReads-1)/batchReads, batchReaders-f.readers)
	}
	more = max(more, 0)
	f.readers += more
	f.mu.Unlock()
	for i := 0; i < more; i++ {
		f.wg.Add(1) // the caller is fetch or a reader: Wait has not returned
		go f.reader()
	}
}

// reader reads queued nodes until none is left or the refresh stops.
func (f *fetcher) reader() {
	defer f.wg.Done()
	for {
		f.mu.Lock()
		if len(f.todo) == 0 || f.ctx.Err() != nil {
			f.readers--
			f.mu.Unlock()
			return
		}
		n := 1
		if f.batched() {
			n = min(len(f.todo), batchReads)
		}
		rs := make([]*read, n)
		for i := range rs {
			rs[i] = f.todo[len(f.todo)-1-i]
		}
		f.todo = f.todo[:len(f.todo)-n]
		f.mu.Unlock()
		var err error
		if f.batched() {
			err = f.readBatch(rs)
		} else {
			err = f.read(rs[0])
		}
		if err != nil {
			f.fail(err)
		}
		for _, r := range rs {
			r.err = err
			close(r.done)
		}
	}
}

// fail records the first failed read and ends the others.
func (f *fetcher) fail(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
	f.cancel()
}

// read reads r's node and, when it is above maxDepth, lists its children
// at the same time, arming their watches, and queues the reads of the
// children that need reading. A data-only read lists the children only when
// the node held is not the one read.
func (f *fetcher) read(r *read) error {
	e := f.e
	listable := e.cfg.maxDepth < 0 || e.depth(r.path) < e.cfg.maxDepth
	var listing chan childrenRead
	if listable && !r.dataOnly {
		listing = make(chan childrenRead, 1)
		go func() {
			names, err := e.watches.readChildren(f.ctx, r.path)
			listing <- childrenRead{names, err}
		}()
	}
	data, stat, err := e.watches.readData(f.ctx, r.path)
	if errors.Is(err, framework.ErrDecompression) && stat != nil {
		// One node written uncompressed must not stop the cache: hold it
		// without data, as a reader of the compressed data could not use it.
		e.cfg.log.Warn("cache: node data does not decompress; holding the node without data",
			zap.String("path", r.path), zap.Error(err))
		e.c.ReportError(fmt.Errorf("cache: node %q held without data: %w", r.path, err))
		data, err = nil, nil
	}
	var listed childrenRead
	if listing != nil {
		listed = <-listing
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		r.absent = true
		return nil
	case err != nil:
		return err
	}
	r.data, r.stat = data, stat
	if !listable {
		return nil
	}
	if listing == nil {
		if f.isHeld(r.path, stat.Czxid) || e.watches.recursive() {
			// Data only: the children held stay, their child watch armed; or
			// a recursive watch reports each child's creation after this one.
			return nil
		}
		listed.names, listed.err = e.watches.readChildren(f.ctx, r.path)
	}
	return f.listed(r, listed.names, listed.err)
}

// listed records what the listing of r's children found (names, or err),
// and queues the reads of the children that need reading.
func (f *fetcher) listed(r *read, names []string, err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		r.vanished = true
		return nil
	}
	if err != nil {
		return err
	}
	r.listed = true
	slices.Sort(names)
	r.wanted = f.followed(r.path, names)
	held := f.heldChildren(r.path, r.stat.Czxid)
	for _, name := range r.wanted {
		if _, ok := held[name]; !ok {
			r.kids = append(r.kids, newRead(framework.JoinPath(r.path, name)))
		}
	}
	f.push(r.kids)
	return nil
}

// childrenRead is what a listing of a node's children found.
type childrenRead struct {
	names []string
	err   error
}

// followed returns the names of p's children that the cache's selector
// accepts. The readers call the selector one at a time, as the engine's
// goroutine alone did: it need not be safe for concurrent use.
func (f *fetcher) followed(p string, names []string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, name := range names {
		if f.e.cfg.follow(framework.JoinPath(p, name)) {
			out = append(out, name)
		}
	}
	return out
}

// heldChildren returns the children held below p when the node held there
// is the one read (czxid): without deep, those are not read again. Only a
// refresh's tops can have any (every other read is of a node not held, or
// of one whose parent was replaced, so whose czxid differs), and the
// engine's goroutine changes nothing at or below a top until that top's
// read is applied (no top is below another, see batches): the answer still
// holds when it applies the read.
func (f *fetcher) heldChildren(p string, czxid int64) map[string]struct{} {
	if f.deep || !f.isHeld(p, czxid) {
		return nil // not held, or held and replaced: hold drops its children
	}
	return f.e.childrenOf(p)
}

// isHeld reports whether the node the cache holds at p is the one read
// (czxid); for a top, the answer holds until its read is applied (see
// heldChildren).
func (f *fetcher) isHeld(p string, czxid int64) bool {
	f.e.mu.RLock()
	defer f.e.mu.RUnlock()
	n, ok := f.e.nodes[p]
	return ok && n.Stat.Czxid == czxid
}
