package queue

import (
	"bytes"
	"context"
	"errors"
	"maps"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// A lock node is named after its item, so once its session is gone another
// consumer may hold a lock node of the same name: a delete of ours must
// never reach the server in another session. Hence no guaranteed delete
// here (it is retried across sessions), and a retried deletion checks that
// the node is still ours (session and token) before it deletes it. A
// deletion that fails is kept in the engine's stale set and tried again,
// before each listing and at Close, for as long as the session that owns
// the lock is the client's.

// afterwards returns the ctx of the work that follows an item's
// consumption (its deletion, its lock's deletion): not cancelled with ctx,
// and bounded by a session timeout from now, after which the lock has gone
// with its session if the connection could not be used.
func afterwards(ctx context.Context, c *framework.Client) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.SessionTimeout())
}

// unlock deletes the lock node while the session that created it is the
// client's current one; a deletion that fails is kept to be tried again.
func (e *engine) unlock(parent context.Context, l itemLock) {
	ctx, cancel := afterwards(parent, e.c)
	defer cancel()
	if err := e.deleteLock(ctx, l, false); err != nil {
		e.log.Warn("queue: deleting the lock node failed; it is tried again while its session lasts", zap.String("lock", l.node), zap.Error(err))
		e.mu.Lock()
		e.stale[l.node] = l
		e.mu.Unlock()
	}
}

// sweep tries again the lock deletions that failed, and forgets those that
// are done or whose session is over.
func (e *engine) sweep(ctx context.Context) {
	e.mu.Lock()
	pending := maps.Clone(e.stale)
	e.mu.Unlock()
	for node, l := range pending {
		if e.deleteLock(ctx, l, true) != nil {
			continue
		}
		e.mu.Lock()
		if bytes.Equal(e.stale[node].token, l.token) { // not replaced meanwhile
			delete(e.stale, node)
		}
		e.mu.Unlock()
	}
}

// deleteLock deletes the lock node l, retried, each attempt sent only while
// l's session is the client's current one. Once an attempt may have applied
// (unsure), the node is read first and deleted only if it is still l (its
// owner and token), at the version read: another consumer may have locked
// the item since under the same name. It returns nil when l is gone.
func (e *engine) deleteLock(ctx context.Context, l itemLock, unsure bool) error {
	return e.c.RetryLoop(ctx, func(ctx context.Context) error {
		if !l.owner.IsCurrent() {
			return nil // it went, or goes, with its session
		}
		version := int32(-1)
		if unsure {
			data, stat, err := e.c.GetData(ctx, l.node)
			switch {
			case errors.Is(err, zk.ErrNoNode):
				return nil
			case err != nil:
				return err
			case stat.EphemeralOwner != l.owner.ID() || !bytes.Equal(data, l.token):
				return nil // ours is gone: this is another consumer's
			}
			version = stat.Version
		}
		unsure = true
		_, err := e.c.TransactionOnce(ctx, &zk.DeleteRequest{Path: l.node, Version: version})
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		return err
	})
}
