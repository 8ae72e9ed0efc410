package framework

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
)

const eventNodeChildrenChanged = zk.EventNodeChildrenChanged

// addWatchMode is ZooKeeper's addWatch mode of m.
func addWatchMode(m AddWatchMode) int32 {
	if m == WatchPersistentRecursive {
		return gozk.AddWatchPersistentRecursive
	}
	return gozk.AddWatchPersistent
}

// removeWatch removes the watch of key from the server on l. ZooKeeper 3.9
// removes one mode's watch by its watcher type (Persistent,
// PersistentRecursive) and leaves a one-shot watch on the same path alone.
// Earlier servers know no such type and cannot read the request: on them a
// connection holds at most one watch per path and list (ZooKeeper keeps one
// mode per connection and path before 3.9), so removing the lists the mode
// uses (data and children for a persistent watch, data for a recursive one)
// removes that one watch.
func removeWatch(l *gozk.Link, key watchKey) error {
	ctx := context.Background()
	typ, fallback := gozk.WatcherPersistent, gozk.WatcherAny
	if key.mode == WatchPersistentRecursive {
		typ, fallback = gozk.WatcherPersistentRecursive, gozk.WatcherData
	}
	_, err := l.Do(ctx, gozk.OpRemoveWatches, gozk.PathRequest(key.path, typ))
	if errors.Is(err, gozk.ErrMarshalling) {
		_, err = l.Do(ctx, gozk.OpRemoveWatches, gozk.PathRequest(key.path, fallback))
	}
	return err
}
