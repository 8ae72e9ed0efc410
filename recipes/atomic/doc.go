// Package atomic provides Curator's distributed atomic values:
// DistributedAtomicValue (raw bytes) and DistributedAtomicLong (Curator's
// 8-byte big-endian long), on the same node as Curator's, so that Go and
// Java services can update one counter together.
//
// Every update is optimistic first: read the node with its version, compute
// the new value, write it only if the version is unchanged, and try again on
// a conflict as the retry policy (WithRetryPolicy) allows. With
// WithPromotedToLock, an update that still conflicts is tried again the same
// way while holding an InterProcessMutex at the lock path, which keeps
// cooperating updaters from racing each other. Writes stay version-checked
// under the lock, so the lock only reduces contention; correctness never
// depends on it.
//
// Each operation returns Curator's result shape, AtomicValue: whether it
// succeeded, the value before and after, and statistics. An operation ends
// in one of three ways:
//
//   - Succeeded true, nil error: the update applied exactly once.
//   - Succeeded false, nil error, or a non-nil error that does not match
//     ErrOutcomeUnknown: the update did not apply (its tries conflicted, the
//     lock was not acquired, a read failed, ctx ended before a write).
//   - An error matching ErrOutcomeUnknown: the reply to a write was lost
//     (connection loss, server restart, session expiry, or ctx ended while
//     the write was under way) and the node's state cannot prove whether it
//     applied. The operation is not tried again, so an increment is never
//     applied twice; the caller decides, for example by reading the value.
//
// Curator itself retries a version-checked write after a connection loss,
// takes the resulting BadVersion for a conflict and tries again, which can
// apply one increment twice. Here a BadVersion or NoNode that follows a
// connection loss is resolved from the node (a version one above the one read,
// holding someone else's value, proves that ours never applied) or else
// reported as unknown.
//
// # Waits and errors
//
// Every call takes a ctx and returns by its deadline, connecting and retries
// included. With a MaxLockTime, the promoted phase (connecting, the wait for
// the lock, the tries under it and their sleeps) ends within MaxLockTime
// plus half a second, even under a ctx without a deadline: when the lock's
// own wait runs out the update did not succeed and the error is nil, as in
// Curator; when the client could not reach the ensemble meanwhile, the
// error says that it was waiting for the promoted lock. A release of the
// lock that the phase's end cuts short goes on in the background. Errors say
// what the call was doing (a read, a write, a wait to retry after a
// conflict, the promoted lock) and carry the "atomic: " prefix once; calls
// on a closed client return an error matching framework.ErrClosed. Bad
// arguments, the root as a path among them, match ErrInvalidArgument.
//
// A node without data counts as 0 for DistributedAtomicLong, as in Curator;
// data of any length but 0 or 8 is an error matching ErrBadValue that names
// the length.
package atomic
