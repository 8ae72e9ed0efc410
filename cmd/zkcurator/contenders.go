package main

import (
	"context"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// The node names of Curator's recipes, as zkcurator reads a path: the text
// before a contender's ordering key, and a semaphore's two children.
const (
	markRead   = "__READ__"
	markWrite  = "__WRIT__"
	markLock   = "lock-"
	markLatch  = "latch-"
	markLease  = "lease-"
	leasesName = "leases"
	locksName  = "locks"
)

// contender is one contender's node of a lock, lease or leader path.
type contender struct {
	path  string
	data  []byte
	stat  *zk.Stat
	holds bool  // it holds the lock or lease, or leads
	token int64 // its holder's fencing token: the node's czxid, or the unfair holder node's
}

// contenders are the nodes of the lock, semaphore or election at a path,
// in the order in which they hold it.
type contenders struct {
	dir   string // where the nodes are: the path, or a semaphore's leases
	nodes []contender
	// recipe is true when the path looks like a recipe's that no one
	// holds now: a semaphore, or a node whose children have all gone
	// (a lock or election path after its last contender left; the server
	// deletes such a container some time later).
	recipe bool
}

// holders returns the contenders that hold.
func (cs contenders) holders() []contender {
	var out []contender
	for _, n := range cs.nodes {
		if n.holds {
			out = append(out, n)
		}
	}
	return out
}

// find returns the contender at p.
func (cs contenders) find(p string) (contender, bool) {
	for _, n := range cs.nodes {
		if n.path == p {
			return n, true
		}
	}
	return contender{}, false
}

// readContenders reads the contenders of what p is: a semaphore (p or its
// leases child), a LeaderLatch election ("latch-" nodes), or a lock (a
// mutex, a read/write lock, a LeaderSelector, the unfair driver's nodes).
// A p that does not exist is an exitNotFound error; one with no contender
// nodes has none.
func readContenders(ctx context.Context, c *framework.Client, p string) (contenders, error) {
	kids, st, err := childrenStat(ctx, c, p)
	if err != nil {
		return contenders{}, err
	}
	var cs contenders
	switch {
	case slices.Contains(kids, leasesName):
		cs, err = readLeases(ctx, c, p)
		cs.recipe = true
		return cs, err
	case path.Base(p) == leasesName && path.Dir(p) != "/":
		cs, err = readLeases(ctx, c, path.Dir(p))
		cs.recipe = true
		return cs, err
	}
	if latches := locks.SortedContenders(kids, markLatch, locks.StandardFixForSorting); len(latches) > 0 {
		cs, err = readNodes(ctx, c, p, latches)
		if len(cs.nodes) > 0 {
			cs.nodes[0].holds = true
		}
	} else {
		cs, err = readLock(ctx, c, p, kids)
	}
	cs.recipe = st.NumChildren == 0 && st.Cversion > 0
	return cs, err
}

// lockKey is a FixForSorting for every lock's nodes at once: a read/write
// lock's, a mutex's (Curator's, Kazoo's, the unfair driver's) and the unfair
// driver's holder node, whose key is empty.
func lockKey(name, _ string) string {
	for _, m := range []string{markRead, markWrite} {
		if strings.Contains(name, m) {
			return locks.StandardFixForSorting(name, m)
		}
	}
	return locks.StandardFixForSorting(name, markLock)
}

// readLock reads a lock's contenders. With the unfair driver's holder node
// the contender it names holds and comes first (the node itself is
// bookkeeping, not a contender); otherwise the first holds, and with a read/write lock so do
// the readers before the first writer. An unfair contender (its key is not
// a sequence number) holds only through the holder node.
func readLock(ctx context.Context, c *framework.Client, dir string, kids []string) (contenders, error) {
	names := locks.SortedContenders(kids, markLock, lockKey)
	var holder []byte
	var holderStat *zk.Stat
	if len(names) > 0 && names[0] == locks.UnfairHolderNodeName {
		data, st, err := getData(ctx, c, framework.JoinPath(dir, names[0]))
		switch {
		case exitCode(err) == exitNotFound:
			// The holder released since the listing: no one holds
			// through it, as for a contender's node that vanished.
		case err != nil:
			return contenders{}, err
		default:
			holder, holderStat = data, st
		}
		names = names[1:]
	}
	cs, err := readNodes(ctx, c, dir, names)
	if err != nil {
		return cs, err
	}
	for i := range cs.nodes {
		n := &cs.nodes[i]
		name := path.Base(n.path)
		switch {
		case holderStat != nil:
			if n.holds = name == string(holder); n.holds {
				n.token = holderStat.Czxid
			}
		case i == 0:
			_, err := strconv.ParseInt(lockKey(name, ""), 10, 64)
			n.holds = err == nil
		default:
			// Readers after leading readers share the lock.
			n.holds = cs.nodes[i-1].holds && strings.Contains(name, markRead) && !strings.Contains(path.Base(cs.nodes[0].path), markWrite)
		}
	}
	if holderStat != nil {
		slices.SortStableFunc(cs.nodes, func(a, b contender) int {
			switch {
			case a.holds == b.holds:
				return 0
			case a.holds:
				return -1
			}
			return 1
		})
	}
	return cs, nil
}

// readLeases reads the lease nodes of the semaphore at p. They all hold but
// those of the session that holds the semaphore's lock ("locks"), which
// waits for its lease to be granted (it holds that lock a moment longer
// once it is).
func readLeases(ctx context.Context, c *framework.Client, p string) (contenders, error) {
	dir := framework.JoinPath(p, leasesName)
	kids, err := children(ctx, c, dir)
	if err != nil {
		return contenders{}, err
	}
	cs, err := readNodes(ctx, c, dir, locks.SortedContenders(kids, markLease, locks.StandardFixForSorting))
	if err != nil {
		return cs, err
	}
	var waiter int64
	lockDir := framework.JoinPath(p, locksName)
	lockKids, err := children(ctx, c, lockDir)
	if err != nil && exitCode(err) != exitNotFound {
		return cs, err
	}
	if lock, err := readLock(ctx, c, lockDir, lockKids); err == nil && len(lock.holders()) == 1 {
		waiter = lock.holders()[0].stat.EphemeralOwner
	}
	for i := range cs.nodes {
		cs.nodes[i].holds = waiter == 0 || cs.nodes[i].stat.EphemeralOwner != waiter
	}
	return cs, nil
}

// readNodes reads the named children of dir, leaving out those deleted
// since they were listed.
func readNodes(ctx context.Context, c *framework.Client, dir string, names []string) (contenders, error) {
	cs := contenders{dir: dir}
	for _, name := range names {
		p := framework.JoinPath(dir, name)
		data, st, err := getData(ctx, c, p)
		if exitCode(err) == exitNotFound {
			continue
		}
		if err != nil {
			return cs, err
		}
		cs.nodes = append(cs.nodes, contender{path: p, data: data, stat: st, token: st.Czxid})
	}
	return cs, nil
}

// children lists p's children; a missing p is an exitNotFound error, one
// that p's ACL keeps from this client an exitNoPermission error.
func children(ctx context.Context, c *framework.Client, p string) ([]string, error) {
	kids, _, err := childrenStat(ctx, c, p)
	return kids, err
}

// childrenStat is children with p's stat.
func childrenStat(ctx context.Context, c *framework.Client, p string) ([]string, *zk.Stat, error) {
	kids, st, err := c.Children(ctx, p)
	if err != nil {
		return nil, nil, zkFail("list", p, err)
	}
	return kids, st, nil
}

// getData reads p; errors are as children's.
func getData(ctx context.Context, c *framework.Client, p string) ([]byte, *zk.Stat, error) {
	data, st, err := c.GetData(ctx, p)
	if err != nil {
		return nil, nil, zkFail("read", p, err)
	}
	return data, st, nil
}
