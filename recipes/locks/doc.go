// Package locks holds zkcurator's distributed locks: Apache Curator's lock
// recipes for Go, speaking Curator's protocol so that Go and Java processes on
// one path exclude each other.
//
// InterProcessMutex is the core. Contenders create nodes under the lock path;
// a LockInternalsDriver decides how nodes are named and who holds the lock:
// StandardLockInternalsDriver (fair, Curator's "_c_<uuid>-lock-<sequence>"
// EPHEMERAL_SEQUENTIAL nodes) or UnfairLockInternalsDriver (random order,
// still mutually exclusive). A waiter watches only the node just before it,
// so a release wakes one waiter, and with the standard driver that waiter
// takes the lock without listing the children again.
//
// Beyond Curator, on purpose:
//   - Every call that can wait takes a context; a cancelled Acquire leaves no
//     node behind.
//   - Lost returns a channel closed when holding is no longer certain (on
//     Suspended under the standard error policy, on Lost under the session
//     policy, when the node is found deleted, or on Release).
//   - FencingToken is the czxid of the hold's node: it strictly increases from
//     one hold to the next, so storage can reject a stale holder's writes.
//   - Reentrancy is per handle, since Go has no thread identity.
//   - Upgrading a held read lock returns ErrUpgrade instead of waiting forever.
//
// # Writing a driver
//
// A driver creates a contender's node (CreatesTheLock), decides from the
// sorted contenders whether a node holds the lock or which single node it
// should watch (GetsTheLock), and extracts the ordering key from a node name
// (FixForSorting). Embed StandardLockInternalsDriver to override one method.
// Whatever a driver changes, mutual exclusion must hold when nodes arrive at
// any time: a driver whose node order is not creation order (random
// suffixes, say) must not grant the lock on order alone, because a newcomer
// can sort before the current holder. Such a driver implements Holding (as
// UnfairLockInternalsDriver does) and overrides NodesSortInCreationOrder to
// return false. Drivers that must clean up more than the node implement
// Releaser. See DRIVERS.md in this directory for the full contract.
//
// # Lost locks and fencing
//
// No lock service can stop a paused process from acting on a lock it no
// longer holds: its session may expire, and another holder may start,
// while it is not running. Watch Lost to stop work early, and pass
// FencingToken to the storage you protect so it can refuse writes that
// carry an older token than one it has already seen.
package locks
