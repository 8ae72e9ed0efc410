// Package watch provides Curator 5's PersistentWatcher: a persistent watch
// (ZooKeeper 3.6+) on a node, or on a node and all its descendants, kept for
// the life of the watcher, its events handed to listeners.
//
// A PersistentWatcher is built on framework.Client.AddWatch. Start sets the
// watch and returns once the server holds it; a server older than 3.6 fails
// it with an error matching framework.ErrPersistentWatchUnsupported. From
// then on:
//
//   - Listeners added with Listen receive every event the server sends for
//     the watch (framework.WatchEvent: a node created, deleted, its data or,
//     non-recursive only, its children changed), in the server's order, on
//     one goroutine of the watcher, never on go-zookeeper's; a slow listener
//     delays the next call and never blocks the client.
//   - The client sets the watch again on every new connection and in every
//     new session; reset listeners (ListenReset) are called then, in their
//     place among the events, because changes made while the watch could not
//     fire are not replayed: a listener that mirrors the tree reads it again,
//     as Curator's CuratorCache does. Reset listeners are also called once
//     when Start has set the watch (as in Curator), and when the watcher's
//     buffer overflowed (framework.MaxPendingWatchEvents).
//   - Close removes the watch from the server (a one-shot watch the client
//     holds on the same path stays) unless another watch of the client on the
//     same path and mode shares it, and no listener is called after Close
//     returns.
//
// Start and Close are bounded by their ctx. A second Start returns
// ErrAlreadyStarted (also while the first is under way; a Start that failed
// may be called again), a Start after Close ErrClosed, a Start on a closed
// client an error matching framework.ErrClosed. Close ends a Start under
// way, which then returns ErrClosed. Close is idempotent. A
// watcher may watch the root "/": it only reads.
package watch
