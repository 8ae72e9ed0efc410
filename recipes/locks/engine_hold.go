package locks

import (
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// closedChan is what Lost returns when nothing is held.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// hold is one acquisition of a lock node, from the moment the lock is held
// until it is released: its Lost channel and its revocation watcher. Its
// fencing token is its node's (lockNode.token).
type hold struct {
	li         *lockInternals
	node       lockNode
	began      time.Time
	met        *lockMetrics
	lost       chan struct{}
	lostOnce   sync.Once
	done       chan struct{} // closed on release
	stopListen func()
	watchers   sync.WaitGroup
	revocation bool // its revocation watcher is started (guarded by the handle's mutex)

}

// newHold starts watching the connection for a hold that has just begun.
// Under the client's error policy a Suspended (standard) or Lost state ends
// the certainty of holding; so does a session other than the one that owned
// our node when we got the lock, and, for a NodeKeeper driver, the driver
// giving our node up.
func newHold(li *lockInternals, n lockNode, met *lockMetrics) *hold {
	h := &hold{li: li, node: n, began: time.Now(), met: met, lost: make(chan struct{}), done: make(chan struct{})}
	c := li.client
	h.stopListen = c.Listen(h.check)
	h.check(c.State())
	h.watch(c.Done(), "the client was closed")
	if k := li.caps.keeper; k != nil {
		h.watch(k.NodeLost(n.path), "the driver gave up the lock node")
	}
	if n.ownWatch != nil {
		h.watchNode(n.ownWatch)
	}
	return h
}

// watchNode closes Lost when the watch set on the hold's node while it was
// acquired reports its deletion; any other event spends the watch.
func (h *hold) watchNode(events <-chan zk.Event) {
	h.watchers.Add(1)
	go func() {
		defer h.watchers.Done()
		select {
		case ev := <-events:
			if ev.Type == zk.EventNodeDeleted {
				h.markLost("lock node deleted")
			}
		case <-h.done:
		}
	}()
}

// check closes Lost when the connection is in an error state of the
// client's error policy, or when the client's session is no longer the one
// that owns the hold's node.
func (h *hold) check(s framework.ConnectionState) {
	c := h.li.client
	switch {
	case c.ErrorPolicy().IsErrorState(s):
		h.markLost("connection " + s.String())
	case h.li.caps.sessionBound && !h.node.owner.IsCurrent():
		h.markLost("the session that owns the lock node is gone")
	}
}

// watch closes Lost, for the reason why, when gone closes before the hold
// ends: the client closing (its session, and so our node, go with it), or
// the driver that keeps the hold's node giving it up (see NodeKeeper).
func (h *hold) watch(gone <-chan struct{}, why string) {
	h.watchers.Add(1)
	go func() {
		defer h.watchers.Done()
		select {
		case <-gone:
			h.markLost(why)
		case <-h.done:
		}
	}()
}

func (h *hold) markLost(why string) {
	h.lostOnce.Do(func() {
		h.li.client.Logger().Warn("lock hold no longer certain", zap.String("path", h.node.path), zap.String("reason", why))
		h.met.lost.Add(1)
		close(h.lost)
	})
}

// end stops the hold's watchers and closes its Lost channel.
func (h *hold) end() {
	h.stopListen()
	close(h.done)
	h.watchers.Wait()
	h.lostOnce.Do(func() { close(h.lost) })
}
