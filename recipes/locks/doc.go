// Package locks holds zkcurator's distributed locks: Apache Curator's lock
// recipes for Go, speaking Curator's protocol so that Go and Java processes on
// one path exclude each other.
//
// InterProcessMutex is the core. Contenders create nodes under the lock path;
// a LockInternalsDriver decides how nodes are named and who holds the lock:
// StandardLockInternalsDriver (fair, Curator's "_c_<uuid>-lock-<sequence>"
// EPHEMERAL_SEQUENTIAL nodes) or UnfairLockInternalsDriver (random order,
// still mutually exclusive). A waiter watches the node just before it (with
// the standard driver also that node's release signal and its own node), so a
// release wakes one waiter, and with the standard driver that waiter takes
// the lock without listing the children again (DRIVERS.md).
//
// Built on the same engine, with Curator's node names:
//   - InterProcessReadWriteLock: "__READ__" and "__WRIT__" nodes in one
//     sequence; readers share, writers exclude everyone, a writer holding the
//     lock may downgrade to read, and later readers queue behind a waiting
//     writer.
//   - InterProcessSemaphoreV2: leases under "<path>/leases", acquirers
//     serialized by a mutex at "<path>/locks"; the limit may live in a shared
//     count node. InterProcessSemaphoreMutex is a semaphore of one lease.
//   - InterProcessMultiLock: several Locks taken in order and rolled back in
//     reverse.
//
// Beyond Curator, on purpose:
//   - A node counts only while the session that created it is the client's
//     current one. A node of a session the client gave up (simulated expiry)
//     or the server expired still stands on the server for a while; it never
//     grants a hold or a lease: the contender deletes it and queues again on
//     its current session. PersistentTTLLockInternalsDriver's adoption of its
//     node by protected id is the one exception, by design.
//   - Every call that can wait takes a context; a cancelled Acquire leaves no
//     node behind and returns the context's error, promptly even in a
//     partition: its clean-up waits only briefly (not at all while
//     disconnected) and the guaranteed deletes go on in the background.
//   - A wait means the whole wait: every TryAcquire returns at the end of
//     its wait, connecting and retries included; only a request on a live
//     connection (and the delete of its node) gets a grace of at most a
//     second, and the clean-up goes on in the background. Running out of
//     time waiting for the lock is no error; running out while waiting for
//     a connection, a reply or a retry is, says so (stating the wait once,
//     on one line) and matches context.DeadlineExceeded, and
//     framework.ErrNotConnected when no connection could be made.
//   - Revocation (MakeRevocable, AttemptRevoke) keeps one watch per hold
//     and calls, once per hold, the callback registered when the request
//     comes. AttemptRevoke writes only to a contender's node and refuses
//     anything else with ErrNotContender; MutexHolder finds the node to
//     revoke.
//   - InterProcessMutex.Lost (also on the two locks of a read/write lock)
//     returns a channel closed when holding is no longer certain (on
//     Suspended under the standard error policy, on Lost under the session
//     policy, when the client's session is no longer the node's, when the
//     node is deleted (a watch set when the lock was taken tells it, as
//     long as the node's data has not changed since), or on Release);
//     Lease.Lost and
//     InterProcessSemaphoreMutex.Lost do the same for a semaphore's lease.
//     InterProcessMultiLock has no Lost of its own: watch its locks'.
//   - InterProcessMutex.FencingToken is the czxid of the hold's node, read
//     when the lock was taken (beside the first listing, at no round trip
//     more) from a node that is this hold's own, so FencingToken makes no
//     request: it strictly increases from one hold to the next, so storage
//     can reject a stale holder's writes, whose token stays its own, older
//     one. A downgrade's read hold keeps its write hold's token.
//     Lease.FencingToken is the czxid of a semaphore lease's node, read when
//     the lease was granted. The multi-lock has no fencing token.
//   - A downgrade creates its read node in one transaction with a check that
//     the write node still exists.
//   - Reentrancy is per handle, since Go has no thread identity.
//   - The mutex and the read/write lock also queue with the contenders of
//     Python's Kazoo ("<hex>__lock__<sequence>", "<hex>__rlock__<sequence>")
//     and go-zookeeper's lock by their server-assigned sequence, so one path
//     is safe in a Go, Java and Python fleet (DRIVERS.md, "Foreign
//     contenders").
//   - Upgrading a held read lock returns ErrUpgrade instead of waiting forever.
//
// The constructors validate their input and return an error: a nil client,
// an invalid path or the root "/", a bad limit, a nil driver or a bad option
// is reported there, before any request, with an error that names the value
// and matches ErrInvalidArgument; a bad wait is reported by the call that
// takes it. Options only record values, which the constructor checks once.
// Every error carries the "locks: " prefix once, however deep the wrapping.
//
// # Writing a driver
//
// A driver creates a contender's node (CreatesTheLock), decides from the
// sorted contenders whether a node holds the lock or which single node it
// should watch (GetsTheLock), and extracts the ordering key from a node name
// (FixForSorting). Embed StandardLockInternalsDriver to override one method;
// everything a driver needs is exported (SortedContenders,
// StandardFixForSorting, package protection, framework.Client). Whatever a
// driver changes, three things must stay true: mutual exclusion however nodes
// arrive, one watched node per waiter, and no node left behind by an attempt
// that fails, times out or is cancelled. The naive unfair driver (the lowest
// random suffix holds) breaks the first: a newcomer with a lower suffix sorts
// before the holder and is told it holds too, which is why
// UnfairLockInternalsDriver also claims a holder node (Holding). Optional
// interfaces let a driver go further: CreationOrdered, Holding, Releaser and
// NodeKeeper (a driver that looks after its nodes reports one it gave up,
// which closes Lost). PersistentTTLLockInternalsDriver uses them for a lock
// that outlives its session: TTL nodes refreshed every TTL/3 while waiting and
// holding, adopted again by a restarted holder through WithProtectedID, and
// freed by the server once a crashed holder stops refreshing.
// locktest.RunDriverSuite checks a driver against a real ZooKeeper; DRIVERS.md
// in this directory has the full contract.
//
// # Lost locks and fencing
//
// No lock service can stop a paused process from acting on a lock it no
// longer holds: its session may expire, and another holder may start,
// while it is not running. Watch Lost to stop work early, and pass
// FencingToken to the storage you protect so it can refuse writes that
// carry an older token than one it has already seen.
package locks
