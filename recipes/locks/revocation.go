package locks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// RevokeMessage is the data Curator writes to a lock node to ask its holder
// to release it.
const RevokeMessage = "__REVOKE__"

// AttemptRevoke asks the holder of the lock node at nodePath to release it by
// setting the node's data to RevokeMessage, as Curator's Revoker does. Holders
// that called MakeRevocable (in Go or in Java) are told; a missing node is
// not an error.
func AttemptRevoke(ctx context.Context, c *framework.Client, nodePath string) error {
	if c == nil {
		return errors.New("locks: AttemptRevoke: nil client")
	}
	if err := framework.ValidatePath(nodePath); err != nil {
		return fmt.Errorf("locks: AttemptRevoke: %w", err)
	}
	_, err := c.SetData(ctx, nodePath, []byte(RevokeMessage), -1)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("locks: revoke %s: %w", nodePath, err)
	}
	return nil
}

// watchRevocation starts the hold's one revocation watcher, unless it runs
// already. When the hold's node data becomes RevokeMessage before the hold
// ends, the watcher calls, once and on a goroutine of its own, the callback
// that current returns then (nil: none), so a callback replaced or removed
// during the hold is never called. The callback may release the lock. The
// caller holds the handle's mutex.
func (h *hold) watchRevocation(current func() func()) {
	if h.revocation {
		return
	}
	h.revocation = true
	h.watchers.Add(1)
	go func() {
		var fn func()
		if h.awaitRevocation() {
			fn = current()
		}
		h.watchers.Done()
		if fn != nil {
			fn()
		}
	}()
}

// awaitRevocation reports whether the hold's node data became RevokeMessage
// before the hold ended or the client closed. It keeps one data watch on the
// node and sends a request only when that watch fires, or, after a failed
// request, once a quarter of the session timeout has passed.
func (h *hold) awaitRevocation() bool {
	c := h.li.client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		select {
		case <-h.done:
		case <-c.Done():
		case <-ctx.Done():
		}
	}()
	for {
		data, _, events, err := c.GetDataW(ctx, h.node.path)
		var again time.Duration
		switch {
		case ctx.Err() != nil, errors.Is(err, framework.ErrClosed):
			return false
		case errors.Is(err, zk.ErrNoNode):
			h.markLost("lock node deleted")
			return false
		case err != nil:
			c.Logger().Debug("revocation watch failed; retrying", zap.String("path", h.node.path), zap.Error(err))
			again = c.SessionTimeout() / 4
		case string(data) == RevokeMessage:
			return true
		}
		if !awaitEvent(ctx, events, again) {
			return false
		}
	}
}

// awaitEvent waits for events to fire or, when again is positive, for again
// to pass (events is nil then), and reports false when ctx ends first.
func awaitEvent(ctx context.Context, events <-chan zk.Event, again time.Duration) bool {
	var retry <-chan time.Time
	if again > 0 {
		t := time.NewTimer(again)
		defer t.Stop()
		retry = t.C
	}
	select {
	case <-events:
	case <-retry:
	case <-ctx.Done():
		return false
	}
	return true
}
