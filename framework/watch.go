package framework

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
)

// AddWatchMode is the mode of a persistent watch (ZooKeeper 3.6's
// AddWatchMode).
type AddWatchMode int

const (
	// WatchPersistent watches one node: its creation, deletion, data and
	// children, until removed.
	WatchPersistent AddWatchMode = iota
	// WatchPersistentRecursive watches a node and every descendant: their
	// creation, deletion and data (ZooKeeper sends no children events for
	// it), until removed.
	WatchPersistentRecursive
)

// String returns ZooKeeper's name of the mode.
func (m AddWatchMode) String() string {
	switch m {
	case WatchPersistent:
		return "PERSISTENT"
	case WatchPersistentRecursive:
		return "PERSISTENT_RECURSIVE"
	}
	return fmt.Sprintf("AddWatchMode(%d)", int(m))
}

// ErrPersistentWatchUnsupported is AddWatch's error when the server is older
// than ZooKeeper 3.6 and does not know addWatch.
var ErrPersistentWatchUnsupported = errors.New("framework: the server does not support persistent watches (addWatch needs ZooKeeper 3.6 or later)")

// WatchEvent is what a PersistentWatch delivers: a change the server
// reported, or a reset.
type WatchEvent struct {
	// Type is EventNodeCreated, EventNodeDeleted, EventNodeDataChanged or
	// (WatchPersistent only) EventNodeChildrenChanged; zero for a reset.
	Type zk.EventType
	// Path is the node that changed, relative to the namespace.
	Path string
	// Reset reports that changes may have been missed before this event: the
	// watch was set again on a new connection or in a new session, or the
	// handle's buffer overflowed. Its owner reads the state again.
	Reset bool
}

// MaxPendingWatchEvents bounds the events a PersistentWatch holds for a
// reader that does not keep up; past it they are dropped and one reset is
// delivered in their place.
const MaxPendingWatchEvents = 1 << 16

// ErrWatchModeConflict is AddWatch's error for a path on which the client
// holds a watch of the other mode: ZooKeeper 3.6 to 3.8 keep one mode per
// path and connection (the one set last takes the other's events), and the
// removal of either would end both, so the client never holds both.
var ErrWatchModeConflict = errors.New("framework: the client holds a persistent watch of the other mode on this path (ZooKeeper keeps one mode per path and connection)")

// AddWatch sets a persistent watch (ZooKeeper 3.6+) on path, relative to the
// namespace, and returns a handle that delivers its events. The node need not
// exist. The client sets the watch again after every reconnect and in every
// new session, and tells the handle with a reset event; handles on the same
// path and mode share one watch on the server, which the last Close removes.
// A server older than 3.6 fails it with ErrPersistentWatchUnsupported; a path
// on which the client holds a watch of the other mode, with
// ErrWatchModeConflict (a recursive watch alone also reports the path's own
// creation, deletion and data changes).
func (c *Client) AddWatch(ctx context.Context, path string, mode AddWatchMode) (*PersistentWatch, error) {
	if mode != WatchPersistent && mode != WatchPersistentRecursive {
		return nil, invalidArg("add watch mode %d: want WatchPersistent or WatchPersistentRecursive", int(mode))
	}
	full, err := c.fullPath(path, false)
	if err != nil {
		return nil, err
	}
	k := c.core
	w, err := k.watches.join(c, watchKey{full, mode})
	if err != nil {
		return nil, wrapErr("add watch", path, err)
	}
	err = k.retryLoop(ctx, "addWatch", c.ns, func(ctx context.Context, _ *zk.Conn, _ int) error {
		return k.watches.ensure(ctx, w.entry)
	})
	if err != nil {
		// The removal goes on in the background once ctx has ended: ctx
		// bounds the call, and the server's answer decides what it holds.
		w.Close(ctx)
		if errors.Is(err, gozk.ErrUnimplemented) {
			err = fmt.Errorf("%w: %w", ErrPersistentWatchUnsupported, err)
		}
		return nil, wrapErr("add watch", path, err)
	}
	return w, nil
}
