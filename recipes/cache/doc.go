// Package cache keeps a local copy of ZooKeeper nodes up to date, as
// Curator's NodeCache, PathChildrenCache and TreeCache do: one node, a node's
// children with their data, or a whole subtree down to a chosen depth; and
// as Curator 5's CuratorCache, which replaces the three there.
//
// CuratorCache tells Listeners (built with NewListener, as Curator's
// CuratorCacheListenerBuilder) of NodeCreated, NodeChanged and NodeDeleted,
// with the node before and after, and of Initialized; the older caches
// deliver Events on a channel, and the listener builder's ForTreeCache,
// ForPathChildrenCache and ForNodeCache bridges speak those events for code
// written against them.
//
// Which watches: as Curator 5's, a CuratorCache follows its tree through one
// persistent recursive watch on its root (ZooKeeper 3.6's addWatch; a
// persistent watch of the root alone under WithSingleNodeCache), and falls
// back to one-shot watches when the server is older than 3.6
// (framework.ErrPersistentWatchUnsupported) or its client already holds a
// persistent watch of the other mode on the root
// (framework.ErrWatchModeConflict). WithOneShotWatches forces one-shot
// watches; Mode tells which a cache uses. NodeCache, PathChildrenCache and
// TreeCache always run on one-shot watches, as do the discovery package's
// ServiceCache: a data watch and a child watch on each node held, each armed
// again when it fires. The two modes hold and report the same; they differ
// in cost:
//
//   - Under a recursive watch the server holds one watch for the cache, the
//     cache's reads arm nothing, and neither it nor go-zookeeper keeps a
//     record per node: a 10,001-node tree costs about 240 bytes of heap a
//     node against about 890 under one-shot watches
//     (TestCuratorCacheHeapPerNode). A node created, changed or deleted costs
//     one getData: a created node is read and added (its children's
//     creations come as events of their own), a deleted one removed with its
//     subtree.
//   - After a reconnect or a new session the client sets the watch again and
//     signals a reset; the cache then reads its whole tree again and reports
//     the differences, as a one-shot cache does after any reconnect.
//
// Start loads what the cache covers, reporting every node as NodeAdded and
// then Initialized, and returns; from then on the cache follows every
// change. Current, Children and Snapshot read what it holds; Events delivers
// the changes.
//
// What a cache guarantees:
//
//   - Events are reported in the order the cache applied them: for one path,
//     in the order of the changes it saw. No change is lost while the cache
//     runs, however slowly Events is read: events queue, and a consumer that
//     falls behind by more than the tree's size and a slack of 1,024 events
//     is caught up instead by the differences between what it was told and
//     what the cache holds (removals children first, then additions and
//     updates parents first), so that the queue stays bounded by the size of
//     the tree. Current, Children and Snapshot never wait for the consumer.
//     Close closes the channel and drops what was not received.
//   - No event reports a state the cache never held: an update only for a new
//     data version, a removal only of a node it held, and for one node in the
//     order of the server's changes. Watches coalesce, so several writes
//     between two reads are seen as the last of them.
//   - A node deleted and created again is reported removed and added (its
//     creation zxid differs), even when its data is equal.
//   - A suspended or lost connection is reported as soon as the client
//     reports it, never held behind a read the cache had under way; after a
//     reconnect, or a new session after an expiry, the cache reads again
//     everything it holds and reports exactly the differences (under a
//     recursive watch, once the watch is set again on the new connection).
//
// A cache runs two goroutines, whatever the number of nodes: one follows the
// watch notifications the client delivers (through
// framework.Client.ListenNodeEvents, or a persistent watch's handle, whose
// events a third goroutine passes on), and one feeds the Events channel.
// While it reads (the load, the whole tree again after a reconnect, and the
// nodes whose watches fired), up to 128 readers more keep that many nodes'
// reads in flight on the connection (a node's data read and its listing
// sent together), and end with the reading. Under a recursive watch, up to 4
// readers read batches of up to 100 nodes instead, each batch in two
// multiRead requests (ZooKeeper 3.6+): the data of its nodes, then the
// children of those whose Stat counts any; a node whose Stat counts none is
// not listed, the watch, set before any read, reporting every child created
// after it. Either way the events come in the order of reading one node
// after the other, each node before its children.
// Under one-shot watches each node has at most one data watch and one child
// watch armed at a time.
//
// A CuratorCache calls its listeners on a goroutine of its own, in the
// order it applied the changes; a slow listener delays the others but never
// the cache, whose backlog stays bounded as above.
//
// The constructors check their arguments and options before any request and
// report a bad one as ErrInvalidArgument naming it; options only record
// values. A cache logs through its client's logger and reports its metrics
// through the client's Metrics, as every recipe does (WithLogger, which
// replaces the logger for one cache, is deprecated).
package cache
