package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// prepare validates a put before any network call: the item name, the
// envelope's size and the request's. It returns the envelope.
func (e *engine) prepare(prefix string, items [][]byte) ([]byte, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("%w: no items to put in the %s at %s", ErrInvalidArgument, e.kind, e.path)
	}
	if err := framework.ValidatePath(framework.JoinPath(e.path, prefix) + "0000000000"); err != nil {
		return nil, fmt.Errorf("%w: item name %q: %w", ErrInvalidArgument, prefix, err)
	}
	env, err := encodeEnvelope(items)
	if err != nil {
		return nil, err
	}
	if err := checkRequest(e.c, framework.JoinPath(e.path, prefix), env); err != nil {
		return nil, err
	}
	return env, nil
}

// put creates one PERSISTENT_SEQUENTIAL item named prefix+sequence holding
// data, and returns its path. The create is sent at most once per attempt
// that may have reached the server: a lost reply is returned as
// ErrOutcomeUnknown, never sent again, so an item is never put twice. In a
// bounded queue the create goes in one transaction with a versioned write of
// the queue node, so that puts racing for the last room cannot all win.
func (e *engine) put(ctx context.Context, prefix string, data []byte) (string, error) {
	if err := e.checkStarted(); err != nil {
		return "", err
	}
	create := &zk.CreateRequest{Path: framework.JoinPath(e.path, prefix), Data: data, Flags: zk.FlagSequence}
	recreated := false
	for {
		ops := []any{create}
		if e.cfg.maxItemsSet {
			guard, err := e.awaitRoom(ctx)
			if err != nil {
				return "", err
			}
			ops = []any{guard, create}
		}
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("queue: put in the %s at %s (not sent): %w", e.kind, e.path, err)
		}
		res, err := e.c.TransactionOnce(ctx, ops...)
		switch {
		case err == nil:
			return res[len(res)-1].String, nil
		case errors.Is(err, framework.ErrNotConnected):
			if ctx.Err() == nil {
				continue // nothing was sent: try again within ctx
			}
			return "", fmt.Errorf("queue: put in the %s at %s (not sent): %w", e.kind, e.path, err)
		case errors.Is(err, zk.ErrSessionExpired), errors.Is(err, zk.ErrSessionMoved):
			continue // refused by the server: try again within ctx
		case errors.Is(err, zk.ErrBadVersion):
			continue // another put took the room first
		case errors.Is(err, zk.ErrNoNode) && !recreated:
			recreated = true // the queue node was deleted: make it again, as Start did
			if err := e.ensure(ctx, e.path); err != nil {
				return "", fmt.Errorf("queue: put in the %s at %s: creating the queue node: %w", e.kind, e.path, err)
			}
			continue
		case errors.Is(err, zk.ErrConnectionClosed) || ctx.Err() != nil:
			return "", fmt.Errorf("queue: put in the %s at %s: %w: %w", e.kind, e.path, ErrOutcomeUnknown, err)
		default:
			return "", fmt.Errorf("queue: put in the %s at %s: %w", e.kind, e.path, err)
		}
	}
}

// awaitRoom waits until the queue node has fewer than maxItems children and
// returns the write that guards the room it saw: it fails if any other put
// of this package came between.
func (e *engine) awaitRoom(ctx context.Context) (*zk.SetDataRequest, error) {
	recreated := false
	for {
		data, stat, err := e.c.GetData(ctx, e.path)
		if errors.Is(err, zk.ErrNoNode) && !recreated {
			recreated = true // the queue node was deleted: make it again, as Start did
			if err = e.ensure(ctx, e.path); err == nil {
				continue
			}
		}
		if err != nil {
			return nil, fmt.Errorf("queue: put in the %s at %s: reading the queue node: %w", e.kind, e.path, err)
		}
		if int(stat.NumChildren) < e.cfg.maxItems {
			return &zk.SetDataRequest{Path: e.path, Data: data, Version: stat.Version}, nil
		}
		children, _, watch, err := e.c.ChildrenW(ctx, e.path)
		if err != nil {
			return nil, fmt.Errorf("queue: put in the %s at %s: watching the items: %w", e.kind, e.path, err)
		}
		if len(children) < e.cfg.maxItems {
			continue
		}
		select {
		case <-watch:
		case <-ctx.Done():
			return nil, fmt.Errorf("queue: put in the %s at %s: waiting for room (%d items, max %d): %w",
				e.kind, e.path, len(children), e.cfg.maxItems, context.Cause(ctx))
		}
	}
}
