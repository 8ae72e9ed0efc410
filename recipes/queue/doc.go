// Package queue provides Curator's distributed queues with Curator 5.4's
// node names and item format, so that Go and Java processes share one
// queue: a Curator producer can feed a Go consumer and the reverse.
//
// DistributedQueue, DistributedIDQueue, DistributedPriorityQueue and
// DistributedDelayQueue keep each put as a PERSISTENT_SEQUENTIAL "queue-"
// child of the queue path whose data is Curator's ItemSerializer envelope
// (several items when put with PutMulti). The id, priority or due time is in
// the node name, as Curator writes it: "queue-|<id>|<seq>",
// "queue-<sign><8 hex digits><seq>", "queue-|<epoch ms in hex>|<seq>".
// Items are generic over
// T with a Serializer (Bytes and JSON are provided). SimpleDistributedQueue
// is ZooKeeper's plain recipe: raw "qn-" nodes, no envelope.
//
// A queue with WithConsumer takes items after Start, one at a time, in its
// order. Without a lock path an item is deleted before its consumer runs
// (received at most once; lost if the consumer dies). WithLockPath is
// Curator's lock safety: the consumer creates the ephemeral
// "<lockPath>/<item name>", reads the item, consumes it, deletes it (or, on
// an error in Requeue mode, deletes and re-creates it in one transaction),
// then deletes the lock node. An item whose consumer's session ends stays
// and is taken by another consumer. Every consumer of one queue must use the
// same lock path: a consumer with another lock path, or none, does not see
// the locks and can take an item being consumed.
//
// Beyond Curator, on purpose: a put is sent at most once, so a put whose
// reply was lost reports ErrOutcomeUnknown instead of leaving a duplicate;
// an item is deleted only in a transaction that checks its lock node, while
// the lock's session is the client's, and a lock node only while it is this
// consumer's (never in a later session, nor by a blind retry); a consumer's
// ctx ends when the lock
// can no longer be trusted (cause ErrItemLost), and an item whose consumer
// returned after that is left for the next consumer; a PutMulti node
// requeued or left mid-way keeps only the items not yet consumed; a
// consumer waiting on
// a lock held by another is woken when that lock goes; WithMaxItems is exact
// among this package's producers (a put's create is guarded by a versioned
// write of the queue node).
//
// ZooKeeper makes a modest queue (Curator's Tech Note 4): every consumer
// lists all children on every change, and a node holds at most 1 MB, so
// keep queues short (thousands of items, not millions) and items small.
// docs/queues.md says more.
package queue
