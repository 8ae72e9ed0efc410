package cache_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// changeReplayer is a Listener that replays a CuratorCache's changes onto a
// tree, refusing what apply refuses and a change that is not one: an old
// node other than the one held, or a new node of another creation, of the
// same data version, or of an older change (out of the server's order).
type changeReplayer struct {
	mu          sync.Mutex
	tree        map[string]cache.Node
	err         error
	initialized bool
	changes     int
}

func (r *changeReplayer) Event(t cache.ChangeType, old, node cache.Node) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	var err error
	switch t {
	case cache.NodeCreated:
		err = apply(r.tree, cache.Event{Type: cache.NodeAdded, Node: node})
	case cache.NodeChanged:
		held := r.tree[node.Path]
		switch {
		case old.Path != node.Path || old.Stat != held.Stat:
			err = fmt.Errorf("NODE_CHANGED %s: old is %s at version %d, the listener was told of version %d", node.Path, old.Path, old.Stat.Version, held.Stat.Version)
		case node.Stat.Czxid != old.Stat.Czxid || node.Stat.Version == old.Stat.Version:
			err = fmt.Errorf("NODE_CHANGED %s: czxid %d->%d, version %d->%d: not a new version of the node", node.Path, old.Stat.Czxid, node.Stat.Czxid, old.Stat.Version, node.Stat.Version)
		case node.Stat.Mzxid <= old.Stat.Mzxid:
			err = fmt.Errorf("NODE_CHANGED %s: mzxid %d->%d: a change older than the one told before (not in the server's order)", node.Path, old.Stat.Mzxid, node.Stat.Mzxid)
		default:
			r.changes++
			err = apply(r.tree, cache.Event{Type: cache.NodeUpdated, Node: node})
		}
	case cache.NodeDeleted:
		err = apply(r.tree, cache.Event{Type: cache.NodeRemoved, Node: old})
	}
	r.err = err
}

func (r *changeReplayer) Initialized() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.initialized && r.err == nil {
		r.err = fmt.Errorf("initialized twice")
	}
	r.initialized = true
}

func (r *changeReplayer) matches(t *testing.T, want map[string]cache.Node) bool {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		t.Fatalf("replaying the listener's changes: %v", r.err)
	}
	return r.initialized && sameTree(r.tree, want)
}

// A writer creates, changes, deletes, and deletes and creates again nodes
// across a tree while the CuratorCache's connection is severed and paused,
// the server restarts and the cache's session expires, in each of the
// cache's watch modes. At the end the cache holds exactly the server's tree,
// and replaying what its listener was told from empty gives that tree too,
// with every NODE_CHANGED a newer version of the node the listener held.
func TestCuratorCacheMatchesTheServerAfterRandomChangesAndFaults(t *testing.T) {
	for _, m := range curatorModes {
		t.Run(m.name, func(t *testing.T) {
			srv := zktest.StartServer(t)
			p := zktest.StartProxy(t, srv.ConnectString())
			writer := zkclient.New(t, srv.ConnectString())
			c := zkclient.New(t, p.Addr()+","+p.Addr(), framework.WithSessionTimeout(4*time.Second))
			ctx := testCtx(t)
			const root = "/curator"
			_, err := writer.Create(ctx, root, nil)
			must(t, err)
			cc, replayed := startReplayed(t, c, root, m.mode, m.opts...)

			randomChangesUnderFaults(t, srv, p, writer, c, root)

			want := awaitReplayedTree(t, writer, root, cc, replayed)
			must(t, cc.Close())
			replayed.mu.Lock()
			defer replayed.mu.Unlock()
			if replayed.err != nil {
				t.Fatal(replayed.err)
			}
			t.Logf("%d nodes at the end, %d changes told", len(want), replayed.changes)
		})
	}
}
