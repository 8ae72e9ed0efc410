package campaign

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
)

// The cache campaign's subtree is {root}/tree: nodes a0..a3 and their
// children b0..b3, which every worker creates, updates and deletes, and
// live/c<i>, the ephemeral node worker i keeps while its session lasts (the
// final state lists live's children as orphans). Every worker's
// CuratorCache follows the whole subtree.
const (
	cacheTree   = "tree"
	cacheLive   = "live"
	cacheFanout = 4 // a0..a3, each with b0..b3
)

// Targets of the cache campaign's records. A write is a Shared hold,
// Accepted when the server answered it (an answer that refuses, such as a
// node that exists, counts: the point is a write the caches must follow);
// a comparison is an Increment hold, Accepted only when the cache agreed
// with the server and the worker's live node was there; an events record
// (Conflict) is an event the cache delivered that contradicts what it had
// delivered before.
const (
	targetWrite  = "write"
	targetEvents = "events"
)

// cacher is one worker's cache of the subtree and the replay of the events
// its listener was told.
type cacher struct {
	tree, live string // the subtree's root; this worker's ephemeral node
	cache      *cache.CuratorCache
	replay     *replay
	churn      *churnGate // shared by every worker of the campaign
}

func newCacher(id int, c *framework.Client, p paths, churn *churnGate, bad func(string)) (*cacher, error) {
	tree := framework.JoinPath(p.root, cacheTree)
	// Half the workers follow the tree on one recursive watch, half on
	// one-shot watches: one campaign checks both of CuratorCache's modes.
	var opts []cache.Option
	if id%2 == 1 {
		opts = append(opts, cache.WithOneShotWatches())
	}
	cc, err := cache.NewCuratorCache(c, tree, opts...)
	if err != nil {
		return nil, err
	}
	r := &replay{nodes: make(map[string]cache.Node), bad: bad}
	cc.Listen(r)
	return &cacher{tree: tree, live: framework.JoinPath(framework.JoinPath(tree, cacheLive), fmt.Sprintf("c%d", id)), cache: cc, replay: r, churn: churn}, nil
}

// runCache is a worker's loop: it keeps its live node, in turn makes a
// few writes in the subtree (while the campaign is not settling) and
// compares its cache with the server's tree.
func (w *worker) runCache(ctx context.Context) {
	cc := w.cacher
	defer cc.cache.Close()
	for started := false; !started && ctx.Err() == nil; {
		octx, cancel := context.WithTimeout(ctx, w.opTimeout)
		started = cc.cache.Start(octx) == nil
		cancel()
	}
	for seq := 0; seq < maxIterations && ctx.Err() == nil; seq++ {
		w.keepLive(ctx)
		cc.churn.during(func() { w.writeOnce(ctx, seq) })
		w.compareTree(ctx, seq)
		sleepCtx(ctx, 20*time.Millisecond)
	}
}

// liveData is what worker client's live node holds in session.
func liveData(client int, session int64) string {
	return fmt.Sprintf("c%d session 0x%x", client, session)
}

// keepLive creates the worker's live node when its session has none; a
// node of an earlier session that the server has not expired yet is left
// to go with it.
func (w *worker) keepLive(ctx context.Context) {
	octx, cancel := context.WithTimeout(ctx, w.opTimeout)
	defer cancel()
	stat, err := w.client.Exists(octx, w.cacher.live)
	if err != nil || stat != nil {
		return
	}
	w.client.Create(octx, w.cacher.live, []byte(liveData(w.id, w.client.SessionID())),
		framework.WithMode(framework.Ephemeral), framework.CreatingParentsIfNeeded())
}

// writeOnce creates, updates or deletes one node of the subtree, drawn
// from the worker's seeded source, with data naming the writer and seq.
func (w *worker) writeOnce(ctx context.Context, seq int) {
	rec := Hold{Client: w.id, Seq: seq, Mode: Shared, Target: targetWrite, Write: never, LostAt: never, Outcome: Accepted}
	a, b, op := w.rng.IntN(cacheFanout), w.rng.IntN(cacheFanout+2), w.rng.IntN(3)
	path := framework.JoinPath(w.cacher.tree, fmt.Sprintf("a%d", a))
	if b < cacheFanout { // mostly a leaf one level down
		path = framework.JoinPath(path, fmt.Sprintf("b%d", b))
	}
	data := []byte(ackName(w.id, seq))
	rec.Enter = w.clock.now()
	octx, cancel := context.WithTimeout(ctx, w.opTimeout)
	defer cancel()
	var err error
	switch op {
	case 0:
		_, err = w.client.Create(octx, path, data, framework.CreatingParentsIfNeeded())
	case 1:
		_, err = w.client.SetData(octx, path, data, -1)
	default:
		err = w.client.Delete(octx, path)
	}
	rec.Exit = w.clock.now()
	if err != nil && !errors.Is(err, zk.ErrNodeExists) && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrNotEmpty) {
		rec.Outcome, rec.Err = Unknown, err.Error()
	}
	w.history.add(rec)
}

// compareTree reads the server's subtree, the cache's snapshot and the
// subtree again, and records whether all three, and the replay of the
// events the cache's listener was told, agree with the worker's live node
// of its current session among them (Accepted); the cache differs from a
// server that did not change between the reads (Conflict); or a read
// failed, the server changed between the reads or the live node is not
// there (Unknown). Counter is the number of the server's nodes, Post the
// cache's, and Token 1 when the live node is there.
func (w *worker) compareTree(ctx context.Context, seq int) {
	cc := w.cacher
	rec := Hold{Client: w.id, Seq: seq, Mode: Increment, Target: targetCache, Write: never, LostAt: never}
	rec.Enter = w.clock.now()
	octx, cancel := context.WithTimeout(ctx, w.opTimeout)
	defer cancel()
	session := w.client.SessionID()
	before, err := treeOf(octx, w.client, cc.tree)
	cached := cachedTree(cc.cache.Snapshot())
	replayed := cc.replay.tree()
	after := before
	if err == nil && slices.Equal(cached, before) {
		after, err = treeOf(octx, w.client, cc.tree)
	}
	rec.Exit = w.clock.now()
	rec.Counter, rec.Post = int64(len(after)), int64(len(cached))
	if slices.Contains(after, cc.live+"="+liveData(w.id, session)) {
		rec.Token = 1
	}
	switch {
	case err != nil:
		rec.Outcome, rec.Err = Unknown, err.Error()
	case !slices.Equal(cached, after):
		rec.Outcome, rec.Err = Conflict, treeDiff(after, cached)
	case !slices.Equal(before, after):
		rec.Outcome = Unknown
	case !slices.Equal(replayed, cached):
		rec.Outcome, rec.Err = Unknown, "the listener has not caught up: "+treeDiff(cached, replayed)
	case rec.Token == 1:
		rec.Outcome = Accepted
	default:
		rec.Outcome, rec.Err = Unknown, "the live node "+cc.live+" of this session is not there"
	}
	w.history.add(rec)
}

// cachedTree renders a cache's snapshot as treeOf renders the server's.
func cachedTree(nodes []cache.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Path + "=" + string(n.Data)
	}
	slices.Sort(out)
	return out
}

// replay applies the events a CuratorCache tells its listener to a map of
// its own, and reports each event that contradicts the ones before: a
// creation of a node it was told exists, a change or deletion of one it
// was not told of or told of otherwise, a change to an older or equal
// version. Once the listener has caught up, the map equals the snapshot.
type replay struct {
	mu    sync.Mutex
	nodes map[string]cache.Node
	bad   func(string) // records a contradiction; called on the cache's goroutine
}

// Event applies one change (cache.Listener).
func (r *replay) Event(t cache.ChangeType, old, node cache.Node) {
	r.mu.Lock()
	defer r.mu.Unlock()
	path := node.Path
	if t == cache.NodeDeleted {
		path = old.Path
	}
	held, ok := r.nodes[path]
	switch {
	case t == cache.NodeCreated && ok:
		r.bad(fmt.Sprintf("%s %s: already told of it (version %d)", t, path, held.Stat.Version))
	case t != cache.NodeCreated && !ok:
		r.bad(fmt.Sprintf("%s %s: never told of it", t, path))
	case t != cache.NodeCreated && !sameNode(held, old):
		r.bad(fmt.Sprintf("%s %s: old node %q version %d, but told of %q version %d", t, path, old.Data, old.Stat.Version, held.Data, held.Stat.Version))
	case t == cache.NodeChanged && (node.Stat.Czxid != old.Stat.Czxid || node.Stat.Version <= old.Stat.Version):
		r.bad(fmt.Sprintf("%s %s: from version %d to %d (created at zxid %#x, then %#x)", t, path, old.Stat.Version, node.Stat.Version, old.Stat.Czxid, node.Stat.Czxid))
	}
	if t == cache.NodeDeleted {
		delete(r.nodes, path)
	} else {
		r.nodes[path] = node
	}
}

// Initialized is the end of the first load (cache.Listener).
func (r *replay) Initialized() {}

// tree renders the replayed nodes as treeOf renders the server's.
func (r *replay) tree() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.nodes))
	for p, n := range r.nodes {
		out = append(out, p+"="+string(n.Data))
	}
	slices.Sort(out)
	return out
}

// sameNode reports whether two reports are of the same version of one
// node.
func sameNode(a, b cache.Node) bool {
	return a.Path == b.Path && string(a.Data) == string(b.Data) && a.Stat.Czxid == b.Stat.Czxid && a.Stat.Version == b.Stat.Version
}

// eventsRecord is the record of a contradiction the replay found.
func eventsRecord(client int, at time.Duration, what string) Hold {
	return Hold{Client: client, Mode: Increment, Target: targetEvents, Enter: at, Exit: at, Write: never, LostAt: never,
		Outcome: Conflict, Err: strings.TrimSpace(what)}
}
