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
// Earlier servers know no such type and cannot read the request
// (MARSHALLINGERROR): removeWatchBefore39 does it their way, at once on a
// connection whose server refused the type before.
func (r *watchRegistry) removeWatch(l *gozk.Link, key watchKey) error {
	if r.before39.Load() == l {
		return removeWatchBefore39(l, key)
	}
	typ := gozk.WatcherPersistent
	if key.mode == WatchPersistentRecursive {
		typ = gozk.WatcherPersistentRecursive
	}
	_, err := l.Do(context.Background(), gozk.OpRemoveWatches, gozk.PathRequest(key.path, typ))
	if errors.Is(err, gozk.ErrMarshalling) {
		r.before39.Store(l)
		return removeWatchBefore39(l, key)
	}
	return err
}
