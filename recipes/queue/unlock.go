package queue

import (
	"context"
	"errors"
	"maps"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// A lock node is named after its item, so once its session is gone another
// consumer may hold a lock node of the same name: a delete of ours must
// never reach the server in another session. Hence no guaranteed delete
// here (it is retried across sessions); a deletion that fails is kept in
// the engine's stale set and tried again, before each listing and at
// Close, for as long as the session that owns the lock is the client's.

// afterwards returns the ctx of the work that follows an item's
// consumption (its deletion, its lock's deletion): not cancelled with ctx,
// and bounded by a session timeout from now, after which the lock has gone
// with its session if the connection could not be used.
func afterwards(ctx context.Context, c *framework.Client) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.SessionTimeout())
}

// unlock deletes the lock node while owner, the session that created it, is
// the client's current one; a deletion that fails is kept to be tried again.
func (e *engine) unlock(parent context.Context, lockNode string, owner int64) {
	ctx, cancel := afterwards(parent, e.c)
	defer cancel()
	if err := e.deleteLock(ctx, lockNode, owner); err != nil {
		e.log.Warn("queue: deleting the lock node failed; it is tried again while its session lasts", zap.String("lock", lockNode), zap.Error(err))
		e.mu.Lock()
		e.stale[lockNode] = owner
		e.mu.Unlock()
	}
}

// sweep tries again the lock deletions that failed, and forgets those that
// are done or whose session is over.
func (e *engine) sweep(ctx context.Context) {
	e.mu.Lock()
	pending := maps.Clone(e.stale)
	e.mu.Unlock()
	for lockNode, owner := range pending {
		if e.deleteLock(ctx, lockNode, owner) != nil {
			continue
		}
		e.mu.Lock()
		if e.stale[lockNode] == owner {
			delete(e.stale, lockNode)
		}
		e.mu.Unlock()
	}
}

// deleteLock deletes lockNode, retried, each attempt sent only while owner
// is the client's current session. It returns nil when the node is gone or
// went with its session.
func (e *engine) deleteLock(ctx context.Context, lockNode string, owner int64) error {
	return e.c.RetryLoop(ctx, func(ctx context.Context) error {
		if !owned.IsCurrent(e.c, owner) {
			return nil // it went, or goes, with its session
		}
		_, err := e.c.TransactionOnce(ctx, &zk.DeleteRequest{Path: lockNode, Version: -1})
		if errors.Is(err, zk.ErrNoNode) {
			return nil // deleted, maybe by a lost attempt
		}
		return err
	})
}
