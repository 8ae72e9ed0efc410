package queue

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// hold is the item a lock-path consumer is consuming.
type hold struct {
	cancel context.CancelCauseFunc
}

// takeLocked is Curator's processWithLockSafety, in Curator's order: create
// the ephemeral "<lockPath>/<item name>", read the item, consume it, delete
// it (or requeue it: delete and re-create in one transaction), and finally
// delete the lock node. It adds what makes the order safe: the item is
// deleted only in a transaction that checks the lock node, and only while
// the session that created the lock is the client's current one; an item
// whose consumer's ctx ended is left where it is.
func (e *engine) takeLocked(ctx context.Context, name string) (<-chan zk.Event, error) {
	lockNode := framework.JoinPath(e.cfg.lockPath, name)
	l, busy, err := e.lock(ctx, lockNode)
	if err != nil || busy != nil {
		return busy, err
	}
	owner := l.owner
	if !owner.IsCurrent() {
		return closedEvents(), nil // the lock went, or the session changed, at once: look again
	}
	defer e.unlock(ctx, l)

	itemPath := framework.JoinPath(e.path, name)
	data, _, err := e.c.GetData(ctx, itemPath)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil // removed, or taken by a consumer without the lock path
	}
	if err != nil {
		return nil, err
	}
	itemCtx, lost := context.WithCancelCause(ctx)
	defer lost(nil)
	e.mu.Lock()
	e.hold = &hold{cancel: lost}
	e.mu.Unlock()
	res, rest := itemLost, []byte(nil)
	if owner.IsCurrent() && e.c.State().IsConnected() {
		res, rest = e.consume(itemCtx, name, data)
	}
	e.mu.Lock()
	e.hold = nil
	e.mu.Unlock()
	if rest != nil {
		data = rest // requeue, or keep, only the items not consumed
		if res == itemLost {
			res = itemRest
		}
	}
	if res == itemLost {
		return nil, nil
	}
	// The deletion's time counts from now: the consumer may have run for
	// longer than a session timeout on a healthy connection.
	finish, cancel := afterwards(ctx, e.c)
	defer cancel()
	return nil, e.finish(finish, name, lockNode, owner, data, res)
}

// itemLock is a lock node this consumer created: its path, the session
// that owns it (of id 0 when the item was not locked) and the token in its data.
type itemLock struct {
	node  string
	owner framework.Session
	token []byte
}

// lock creates the item's lock node; busy watches a lock node another
// consumer holds.
func (e *engine) lock(ctx context.Context, lockNode string) (l itemLock, busy <-chan zk.Event, err error) {
	token := []byte(protection.NewID())
	owner, busy, err := e.lockOnce(ctx, lockNode, token, false)
	return itemLock{node: lockNode, owner: owner, token: token}, busy, err
}

// lockOnce is lock; remade tells that the lock path was made again already.
// The lock node's data is a token new to this lock, so that a create whose
// reply was lost is told from a lock another consumer on the same client
// (the same session) holds: both have our session as owner, only ours has
// our token. Curator writes its client's address there and never reads it.
func (e *engine) lockOnce(ctx context.Context, lockNode string, token []byte, remade bool) (owner framework.Session, busy <-chan zk.Event, err error) {
	_, owner, err = owned.Create(ctx, e.c, func(ctx context.Context) (string, error) {
		return e.c.Create(ctx, lockNode, token, framework.WithMode(framework.Ephemeral))
	})
	switch {
	case err == nil:
		return owner, nil, nil
	case errors.Is(err, zk.ErrNoNode) && !remade:
		// The lock path was deleted: make it again, as Start did.
		if err := e.ensure(ctx, e.cfg.lockPath); err != nil {
			return framework.Session{}, nil, fmt.Errorf("queue: creating the lock path %s: %w", e.cfg.lockPath, err)
		}
		return e.lockOnce(ctx, lockNode, token, true)
	case !errors.Is(err, zk.ErrNodeExists):
		return framework.Session{}, nil, fmt.Errorf("queue: creating the lock node %s: %w", lockNode, err)
	}
	// Held by another consumer, or our own create whose reply was lost.
	data, stat, watch, err := e.c.GetDataW(ctx, lockNode)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return framework.Session{}, closedEvents(), nil // already released: look again
	case err != nil:
		return framework.Session{}, nil, fmt.Errorf("queue: watching the lock node %s: %w", lockNode, err)
	}
	if owner = e.c.SessionOf(stat.EphemeralOwner); owner.IsCurrent() && bytes.Equal(data, token) {
		return owner, nil, nil
	}
	return framework.Session{}, watch, nil
}

// finish deletes (or requeues, or, for itemRest, rewrites with data) a
// consumed item, in one transaction with a check that the lock node still
// exists, and only while the lock's session
// is the client's current one. A lost reply is retried: the second attempt
// finds the item gone and counts as done, so an item is never requeued
// twice.
func (e *engine) finish(ctx context.Context, name, lockNode string, owner framework.Session, data []byte, res itemResult) error {
	itemPath := framework.JoinPath(e.path, name)
	ops := []any{
		&zk.CheckVersionRequest{Path: lockNode, Version: -1},
		&zk.DeleteRequest{Path: itemPath, Version: -1},
	}
	switch res {
	case itemRequeue:
		ops = append(ops, &zk.CreateRequest{Path: framework.JoinPath(e.path, requeuePrefix(name)), Data: data, Flags: zk.FlagSequence})
	case itemRest:
		ops[1] = &zk.SetDataRequest{Path: itemPath, Data: data, Version: -1}
	}
	retried := false
	err := e.c.RetryLoop(ctx, func(ctx context.Context) error {
		if !owner.IsCurrent() {
			return errLockGone
		}
		_, err := e.c.TransactionOnce(ctx, ops...)
		if errors.Is(err, zk.ErrNoNode) && retried {
			return nil // the lost attempt applied
		}
		if errors.Is(err, zk.ErrConnectionClosed) {
			retried = true
		}
		return err
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errLockGone):
		e.log.Warn("queue: the item's lock went with its session before the item was deleted; it stays for the next consumer", zap.String("item", itemPath))
		return nil
	case errors.Is(err, zk.ErrNoNode):
		return nil // the item was removed, or the lock is gone: the item is not ours to delete
	}
	return fmt.Errorf("queue: deleting the consumed item %s: %w", itemPath, err)
}

var errLockGone = errors.New("the lock's session is gone")

// closedEvents returns a watch that has fired, so that the loop looks again.
func closedEvents() <-chan zk.Event {
	ch := make(chan zk.Event)
	close(ch)
	return ch
}
