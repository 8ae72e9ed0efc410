package cache

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/queue"
)

// A CuratorCache follows its tree through one persistent recursive watch on
// its root when the server supports it, as Curator's does. The watch is set
// before the load reads anything, so that no change after a read goes
// unnoticed; its events (a node created, its data changed, deleted) feed the
// loop as one-shot notifications do, and each is answered by one getData of
// the node: a node created below a node held is added, a changed one
// updated, a deleted one removed with its subtree. No listing is needed
// outside a load: the watch reports each child's creation after its
// parent's, so a node read anew gets its children from their own events.
// The client sets the watch again on every new connection and in every new
// session and then delivers a reset in its place among the events: changes
// made while the watch was away are not replayed, so the loop reads the
// whole tree again, as after a one-shot cache's reconnect, and reports the
// differences.

// removeWatchWithin bounds how long Close waits for the server to remove
// the cache's watch; a watch not removed by then goes with its connection.
const removeWatchWithin = 2 * time.Second

// recursiveReads is the transport of a cache under a persistent watch: its
// reads arm no watch, and it keeps no record of watches.
type recursiveReads struct{ c *framework.Client }

func (r recursiveReads) readData(ctx context.Context, p string) ([]byte, *zk.Stat, error) {
	return r.c.GetData(ctx, p)
}

func (r recursiveReads) readChildren(ctx context.Context, p string) ([]string, error) {
	names, _, err := r.c.Children(ctx, p)
	return names, err
}

// awaitCreation has nothing to arm: the watch, set before any read, reports
// the root's creation.
func (recursiveReads) awaitCreation(context.Context, string) (bool, error) { return false, nil }

// childrenWatched is true of every node: each child's creation and deletion
// is notified.
func (recursiveReads) childrenWatched(string) bool { return true }
func (recursiveReads) notified(zk.Event)           {}
func (recursiveReads) reset()                      {}
func (recursiveReads) recursive() bool             { return true }

// follow sets how the loop learns of changes, pushing them into inbox, and
// returns what stops it: the persistent watch when the cache wants one and
// the server supports it (ErrPersistentWatchUnsupported) and the client
// holds no watch of the other mode on the root (ErrWatchModeConflict), one-shot
// watches otherwise. It sets e.watches and e.mode accordingly.
func (e *engine) follow(ctx context.Context, inbox *queue.Queue[input]) (stop func(), err error) {
	if e.wantRecursive {
		stop, err := e.followPersistent(ctx, inbox)
		switch {
		case err == nil:
			e.watches = recursiveReads{e.c}
			e.mode.Store(int32(RecursiveWatch))
			return stop, nil
		case !errors.Is(err, framework.ErrPersistentWatchUnsupported) && !errors.Is(err, framework.ErrWatchModeConflict):
			return nil, err
		}
		e.cfg.log.Info("cache: following the tree through one-shot watches",
			zap.String("root", e.root), zap.Error(err))
	}
	if _, ok := e.watches.(*oneShot); !ok {
		e.watches = newOneShot(e.c)
	}
	e.mode.Store(int32(OneShotWatches))
	return e.c.ListenNodeEvents(func(ev zk.Event) { inbox.Push(input{event: ev}) }), nil
}

// followPersistent sets the persistent watch on the root (recursive, unless
// the cache holds the root alone) and forwards its events to inbox until
// the returned stop, which removes the watch.
func (e *engine) followPersistent(ctx context.Context, inbox *queue.Queue[input]) (func(), error) {
	mode := framework.WatchPersistentRecursive
	if e.cfg.maxDepth == 0 {
		mode = framework.WatchPersistent
	}
	w, err := e.c.AddWatch(ctx, e.root, mode)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.Events() {
			switch {
			case ev.Reset:
				inbox.Push(input{reset: true})
			case ev.Type != zk.EventNodeChildrenChanged: // the root's own, of a single node cache
				inbox.Push(input{event: zk.Event{Type: ev.Type, Path: ev.Path}})
			}
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), removeWatchWithin)
		defer cancel()
		if err := w.Close(ctx); err != nil {
			e.cfg.log.Debug("cache: the server did not remove the cache's watch; it goes with its connection",
				zap.String("root", e.root), zap.Error(err))
		}
		<-done
	}, nil
}
