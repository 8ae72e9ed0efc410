package framework

import (
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
)

// Before ZooKeeper 3.9 a connection holds one watch, of one mode, per path
// and list (see internal/gozk's oneshot.go): a one-shot watch go-zookeeper
// sets where a persistent watch of ours is turns ours into a one-shot
// watch, and removing ours removes go-zookeeper's. The client undoes both:
// it sets its persistent watch again right behind go-zookeeper's request,
// and after removing its watch it sets go-zookeeper's one-shot watches on
// the path again. On 3.9 and later neither is needed and both are
// harmless: the server keeps watches of different modes apart.

// oneShotSet sets the persistent watches on path again, through b: right
// behind go-zookeeper's request that sets a one-shot watch there, so that
// the server takes the two in that order. It runs on go-zookeeper's
// goroutine with the connection held: it only queues. It needs no
// semaphore: a watch whose last handle has gone is skipped, and its removal
// is written after this. A notification between the two requests may have
// used up a watch the one-shot watch had turned into a one-shot one: then
// the handles get a reset. A recursive watch turned one-shot on its path
// sends nothing for its descendants' changes: its handles get a reset when
// the server applied any change between the two requests (their replies'
// zxids differ).
func (r *watchRegistry) oneShotSet(g *gozk.Gate, b *gozk.Behind, path string) {
	type again struct {
		e    *watchEntry
		seen uint64
	}
	var todo []again
	r.mu.Lock()
	if g == r.gate {
		for key, e := range r.entries {
			if key.path == path && e.on != nil && len(e.handles) > 0 {
				todo = append(todo, again{e, e.events})
			}
		}
	}
	r.mu.Unlock()
	for _, a := range todo {
		e, key := a.e, a.e.key
		b.Send(opAddWatch, gozk.PathRequest(key.path, addWatchMode(key.mode)), func(rep gozk.Reply, err error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			switch {
			case err == nil && (e.events != a.seen || key.mode == WatchPersistentRecursive && b.Changed(rep)):
				for h := range e.handles {
					h.push(WatchEvent{Reset: true})
				}
			case err != nil && !errors.Is(err, gozk.ErrLinkClosed):
				r.k.log.Sugar().Errorw("cannot set a persistent watch again after a one-shot watch on its path",
					"path", key.path, "error", err)
			}
		})
	}
}

// removeWatchBefore39 removes the watch of key on a server older than 3.9
// (one that cannot read the persistent watcher types): the data and
// children lists are emptied for path (those servers set a recursive
// watch in both, too), and the one-shot watches go-zookeeper holds
// there are set again right behind, in the same write, so that the server
// handles them in that order and no watch request of go-zookeeper's comes
// between unseen. A one-shot watch whose notification was on its way meanwhile
// was set again for no one: it is removed after, unless go-zookeeper asked
// for it again.
func removeWatchBefore39(l *gozk.Link, key watchKey) error {
	typ, want := gozk.WatcherAny, gozk.OneShotData|gozk.OneShotChild
	removed := make(chan error, 1)
	var kinds uint8
	var rearmed []chan error
	l.Batch(func(b *gozk.Behind) {
		kinds = want & l.OneShot(key.path)
		b.Send(gozk.OpRemoveWatches, gozk.PathRequest(key.path, typ), func(_ gozk.Reply, err error) { removed <- err })
		for _, kind := range []uint8{gozk.OneShotData, gozk.OneShotChild} {
			if kinds&kind == 0 {
				continue
			}
			ch := make(chan error, 1)
			op, body := gozk.WatchRequest(key.path, kind)
			b.Send(op, body, func(_ gozk.Reply, err error) { ch <- err })
			rearmed = append(rearmed, ch)
		}
	})
	for _, ch := range rearmed {
		if err := <-ch; err != nil && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, gozk.ErrLinkClosed) {
			return err
		}
	}
	if err := <-removed; err != nil {
		return err
	}
	return dropFired(l, key.path, kinds)
}

// dropFired removes the one-shot watches of kinds on path that were set
// again for go-zookeeper but that it no longer holds: their notification
// came before they were set (it is read before the replies). One that
// fired since is gone already (ErrNoWatcher).
func dropFired(l *gozk.Link, path string, kinds uint8) error {
	var done []chan error
	l.Batch(func(b *gozk.Behind) {
		fired := kinds &^ l.OneShot(path)
		for kind, typ := range map[uint8]int32{gozk.OneShotData: gozk.WatcherData, gozk.OneShotChild: gozk.WatcherChildren} {
			if fired&kind == 0 {
				continue
			}
			ch := make(chan error, 1)
			b.Send(gozk.OpRemoveWatches, gozk.PathRequest(path, typ), func(_ gozk.Reply, err error) { ch <- err })
			done = append(done, ch)
		}
	})
	for _, ch := range done {
		if err := <-ch; err != nil && !errors.Is(err, gozk.ErrNoWatcher) && !errors.Is(err, gozk.ErrLinkClosed) {
			return err
		}
	}
	return nil
}
