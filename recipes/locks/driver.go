package locks

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/zkcurator/zkcurator/framework"
)

// LockInternalsDriver decides how a lock's nodes are created and who holds the
// lock, as Curator's LockInternalsDriver does. Implementations must be safe for
// concurrent use; see "Writing a driver" in the package documentation.
type LockInternalsDriver interface {
	// CreatesTheLock creates this contender's node. path is the lock path
	// joined with the lock name (for example "/locks/jobs/lock-"); the result
	// is the full path of the node created.
	CreatesTheLock(ctx context.Context, c *framework.Client, path string, data []byte) (string, error)

	// GetsTheLock reports whether the contender whose node is named
	// sequenceNodeName holds the lock, given all contenders' node names in
	// lock order, and otherwise which one contender to watch.
	GetsTheLock(ctx context.Context, c *framework.Client, children []string, sequenceNodeName string, maxLeases int) (PredicateResults, error)

	// FixForSorting returns the part of a node name that orders contenders.
	// A name that does not carry lockName must be returned unchanged: such a
	// child is not a contender.
	FixForSorting(str, lockName string) string
}

// PredicateResults is the answer of LockInternalsDriver.GetsTheLock.
type PredicateResults struct {
	// GetsTheLock is true when the contender holds the lock.
	GetsTheLock bool
	// PathToWatch names the child of the lock path to watch when the lock is
	// not held; its deletion (or change) wakes the contender.
	PathToWatch string
}

// CreationOrdered is implemented by drivers whose nodes sort in the order in
// which they were created (ZooKeeper's sequential nodes), so no contender that
// arrives later can sort before an earlier one. For such drivers a waiter
// whose watched node is deleted re-evaluates its last listing without that
// node and, if that already grants the lock, holds it without listing the
// children again. Under StandardLockInternalsDriver itself with one lease (a
// mutex), a release also signals the next waiter that its predecessor held
// the lock, so that every hand-off in the queue takes no round trip (see
// DRIVERS.md).
type CreationOrdered interface {
	NodesSortInCreationOrder() bool
}

// Releaser is implemented by drivers that must do more than delete the lock
// node when a hold ends or an attempt is abandoned (for example, stop keeping
// a node alive). When a driver implements it, LockInternals calls it instead of
// deleting the node itself; it must leave no node of this contender behind.
type Releaser interface {
	ReleasesTheLock(ctx context.Context, c *framework.Client, lockPath string) error
}

// Holding is implemented by drivers whose node order alone cannot grant the
// lock safely, such as drivers with random suffixes, where a newcomer may sort
// before the current holder. LockInternals then also requires the contender
// that GetsTheLock picks to create the ephemeral child HolderNodeName() of the
// lock path; the lock is held while that node exists, its creation zxid is the
// fencing token, and release deletes it together with the lock node.
type Holding interface {
	HolderNodeName() string
}

// StandardFixForSorting returns the text after the last occurrence of lockName
// in str, or str itself when lockName does not occur: Curator's ordering key.
func StandardFixForSorting(str, lockName string) string {
	if i := strings.LastIndex(str, lockName); i >= 0 {
		return str[i+len(lockName):]
	}
	return str
}

// SortedContenders returns the children that carry a lock name according to
// fix (those for which fix changes the name), in lock order. Keys that are
// sequence numbers compare as numbers, so ZooKeeper's negative sequence
// numbers after the counter wraps order correctly among themselves; other
// keys compare as text, and equal keys by the whole name.
func SortedContenders(children []string, lockName string, fix func(str, lockName string) string) []string {
	type entry struct {
		name, key string
		num       int64
		numeric   bool
	}
	entries := make([]entry, 0, len(children))
	for _, child := range children {
		key := fix(child, lockName)
		if key == child {
			continue
		}
		n, err := strconv.ParseInt(key, 10, 64)
		entries = append(entries, entry{name: child, key: key, num: n, numeric: err == nil})
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		switch {
		case a.numeric && b.numeric && a.num != b.num:
			return a.num < b.num
		case a.numeric != b.numeric:
			return a.numeric
		case a.key != b.key:
			return a.key < b.key
		}
		return a.name < b.name
	})
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.name
	}
	return out
}
