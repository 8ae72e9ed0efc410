package locks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// closedChan is what Lost returns when nothing is held.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// hold is one acquisition of a lock node, from the moment the lock is held
// until it is released: its Lost channel, its lazily read fencing token and
// its revocation watcher.
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

	tokenTurn chan struct{} // held by the one read of the fencing token under way
	token     int64
}

// newHold starts watching the connection for a hold that has just begun.
// Under the client's error policy a Suspended (standard) or Lost state ends
// the certainty of holding; so does a session other than the one that owned
// our node when we got the lock, and, for a NodeKeeper driver, the driver
// giving our node up.
func newHold(li *lockInternals, n lockNode, met *lockMetrics) *hold {
	h := &hold{li: li, node: n, began: time.Now(), met: met, lost: make(chan struct{}), done: make(chan struct{}), tokenTurn: make(chan struct{}, 1), token: n.token}
	c := li.client
	h.stopListen = c.Listen(h.check)
	h.check(c.State())
	h.watch(c.Done(), "the client was closed")
	if k := li.caps.keeper; k != nil {
		h.watch(k.NodeLost(n.path), "the driver gave up the lock node")
	}
	return h
}

// check closes Lost when the connection is in an error state of the
// client's error policy, or when the client's session is no longer the one
// that owns the hold's node.
func (h *hold) check(s framework.ConnectionState) {
	c := h.li.client
	switch {
	case c.ErrorPolicy().IsErrorState(s):
		h.markLost("connection " + s.String())
	case h.li.caps.sessionBound && !owned.IsCurrent(c, h.node.owner):
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

// fencingToken returns the creation zxid of the hold's fence node, read once
// and only from a node that is this hold's own: owned by the hold's session
// and, for a holder node shared by all contenders, naming our node. A stale
// hold (its node gone, or the fence node now a successor's) gets 0 and its
// Lost channel closes. The read is bounded by ctx and the session timeout;
// when ctx ends first, while it waits for the read or for another read under
// way, it returns 0 and ctx's error.
func (h *hold) fencingToken(ctx context.Context) (int64, error) {
	select {
	case h.tokenTurn <- struct{}{}:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	defer func() { <-h.tokenTurn }()
	if h.token != 0 {
		return h.token, nil
	}
	rctx, cancel := context.WithTimeout(ctx, h.li.client.SessionTimeout())
	defer cancel()
	go func() {
		select {
		case <-h.done:
			cancel()
		case <-rctx.Done():
		}
	}()
	fence := h.li.fencePath(h.node.path)
	data, stat, err := h.li.client.GetData(rctx, fence)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		h.markLost("lock node deleted")
		return 0, nil
	case err != nil && ctx.Err() != nil:
		return 0, err
	case err != nil:
		h.li.client.Logger().Warn("reading the fencing token failed", zap.String("path", h.node.path), zap.Error(err))
		h.li.client.ReportError(fmt.Errorf("locks: reading the fencing token of %q failed: %w", h.node.path, err))
		return 0, nil
	case fence != h.node.path && string(data) != path.Base(h.node.path),
		h.li.caps.sessionBound && stat.EphemeralOwner != h.node.owner:
		h.markLost("the fence node belongs to another hold")
		return 0, nil
	}
	h.token = stat.Czxid
	return h.token, nil
}
