package locks

import (
	"context"
	"slices"
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
	// A name the driver does not read as a contender (usually one that does
	// not carry lockName) must be returned unchanged: such a child is ignored.
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
// in str for every name that carries lockName: Curator's ordering key, for
// our nodes, Curator's and go-zookeeper's ("_c_<hex>-lock-<sequence>") alike.
// For the mutex's lock name "lock-" it also reads Python Kazoo's lock nodes,
// "<uuid hex>__lock__<sequence>" (Lock, WriteLock) and
// "<uuid hex>__rlock__<sequence>" (ReadLock), as their sequence, so a mutex
// queues with them in the server's sequence order. Any other str comes back
// unchanged: it is not a contender.
func StandardFixForSorting(str, lockName string) string {
	if i := strings.LastIndex(str, lockName); i >= 0 {
		return str[i+len(lockName):]
	}
	if lockName == lockNameMutex {
		if seq, _, ok := kazooSequence(str); ok {
			return seq
		}
	}
	return str
}

// SortedContenders returns the children that fix reads as contenders (those
// for which fix changes the name), in lock order:
//   - an empty key first: the unfair driver's holder node (UnfairHolderNodeName),
//     which Curator's text order puts first too, so fair contenders wait for it;
//   - then keys that are ZooKeeper sequence numbers, in serial-number order
//     (RFC 1982) on 32 bits, so that after the server's counter wraps from
//     2147483647 to -2147483648 a newcomer still sorts after the contenders
//     before the wrap (Curator compares the keys as text and puts "-..." first:
//     a Java and a Go contender disagree at the wrap);
//   - then any other key as text (the unfair driver's "u<digits>" keys);
//   - equal keys by the whole name.
//
// Serial-number order needs the live sequences to span less than 2^31, which
// they do by far: the order starts after the largest gap on the 32-bit circle.
func SortedContenders(children []string, lockName string, fix func(str, lockName string) string) []string {
	type entry struct {
		name, key string
		serial    uint32
		rank      int // 0 empty key, 1 sequence, 2 other
	}
	entries := make([]entry, 0, len(children))
	for _, child := range children {
		key := fix(child, lockName)
		if key == child {
			continue
		}
		e := entry{name: child, key: key, rank: 2}
		switch n, err := strconv.ParseInt(key, 10, 32); {
		case key == "":
			e.rank = 0
		case err == nil:
			e.rank, e.serial = 1, uint32(int32(n))
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		switch {
		case a.rank != b.rank:
			return a.rank < b.rank
		case a.rank == 1 && a.serial != b.serial:
			return a.serial < b.serial
		case a.key != b.key:
			return a.key < b.key
		}
		return a.name < b.name
	})
	rotateAtLargestGap(entries, func(e entry) (uint32, bool) { return e.serial, e.rank == 1 })
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.name
	}
	return out
}

// rotateAtLargestGap rotates the run of sequence entries in s (sorted by
// serial) so that it starts after the largest gap between neighbours on the
// 32-bit circle: the place where the server's counter wrapped, if it did.
func rotateAtLargestGap[E any](s []E, serial func(E) (uint32, bool)) {
	lo, hi := -1, -1
	for i, e := range s {
		if _, ok := serial(e); ok {
			if lo < 0 {
				lo = i
			}
			hi = i + 1
		}
	}
	if lo < 0 || hi-lo < 2 {
		return
	}
	run := s[lo:hi]
	first, _ := serial(run[0])
	last, _ := serial(run[len(run)-1])
	start, widest := 0, first-last // the gap across the wrap, modulo 2^32
	for i := 1; i < len(run); i++ {
		a, _ := serial(run[i-1])
		b, _ := serial(run[i])
		if gap := b - a; gap > widest {
			start, widest = i, gap
		}
	}
	slices.Reverse(run[:start])
	slices.Reverse(run[start:])
	slices.Reverse(run)
}
