// Package shared provides Curator's SharedValue and SharedCount: a value in
// one ZooKeeper node that every participant reads, watches and updates,
// with Curator's bytes on the same path so that Go and Java services share it.
//
// A SharedValue holds raw bytes; a SharedCount holds an int32 in Curator's
// encoding, 4 big-endian bytes. Start creates the node with the seed value
// if it does not exist, reads it and keeps a watch on it. Value returns the
// latest value seen with its version; Set writes unconditionally; TrySet
// writes only if the node still has the version given, the compare-and-set
// from which optimistic counters are built.
//
// What the value guarantees:
//
//   - Monotonic: a value is adopted only if it was written after the one held
//     (the node's mzxid is higher), so Value never goes back in time, across
//     reconnects, session expiry and servers that lag behind.
//   - Changes delivers every value adopted after Start, in the order adopted,
//     none dropped however slowly the channel is read (they queue). ZooKeeper
//     watches coalesce: several writes between two reads are seen as the last
//     of them, so Changes is the sequence of values this client saw, not of
//     every write. Values written by this SharedValue's own Set and TrySet are
//     delivered too. Close closes the channel and drops what was not received.
//   - TrySet is exact: true means it applied exactly once, false with a nil
//     error means it certainly did not (the version was stale); an error
//     matching ErrOutcomeUnknown means its reply was lost and it may have
//     applied. It is never silently retried into a second write.
//   - After a reconnect or a new session the value is read again, since a
//     change may have happened while the watch could not fire.
//
// Start, Set and TrySet return by their ctx's deadline, connecting and
// retries included, with an error that names the step (create, read, set,
// try set) and carries the "shared: " prefix once. On a closed client they
// return an error matching framework.ErrClosed. Bad arguments, the root as
// the path among them, match ErrInvalidArgument. A second Start returns
// ErrAlreadyStarted, a Start after Close ErrClosed. Close is idempotent.
//
// A node whose data is not a valid value (for SharedCount, not 4 bytes) makes
// Start fail with ErrBadValue; such data written later is skipped and logged.
package shared
