package framework

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/retry"
)

// DeleteOption configures one Delete.
type DeleteOption func(*deleteOptions)

type deleteOptions struct {
	version    int32
	guaranteed bool
	children   bool
	quietly    bool
}

// WithVersion deletes the node only if its version is v (default -1: any version).
func WithVersion(v int32) DeleteOption {
	return func(o *deleteOptions) { o.version = v }
}

// Guaranteed keeps trying in the background, across reconnects, when the delete fails
// with a retryable error or ctx ends, until the node is gone or the client closes (Close
// waits a bounded time for it). The call itself still reports its failure.
func Guaranteed() DeleteOption {
	return func(o *deleteOptions) { o.guaranteed = true }
}

// DeletingChildrenIfNeeded deletes the node's descendants first when it has any.
func DeletingChildrenIfNeeded() DeleteOption {
	return func(o *deleteOptions) { o.children = true }
}

// Quietly treats an absent node as success.
func Quietly() DeleteOption {
	return func(o *deleteOptions) { o.quietly = true }
}

// Delete deletes a node; errors.Is(err, zk.ErrNoNode) when it does not exist (unless
// Quietly), zk.ErrNotEmpty when it has children (unless DeletingChildrenIfNeeded) and
// zk.ErrBadVersion on a version mismatch. An absent node after a retried connection loss
// counts as success, since the lost attempt may have deleted it.
func (c *Client) Delete(ctx context.Context, path string, opts ...DeleteOption) error {
	o := deleteOptions{version: -1}
	for _, opt := range opts {
		opt(&o)
	}
	full, err := c.fullPath(path, false)
	if err != nil {
		return err
	}
	k := c.core
	lostReply := false
	err = k.retryLoop(ctx, "delete", c.ns, func(ctx context.Context, conn *zk.Conn, _ int) error {
		err := k.deleteOnce(ctx, conn, full, o)
		if errors.Is(err, zk.ErrNoNode) && (o.quietly || lostReply) {
			return nil
		}
		if retry.IsRetryable(err) {
			lostReply = true
		}
		return err
	})
	if err != nil && o.guaranteed && (retry.IsRetryable(err) || ctx.Err() != nil) {
		k.bg.add(k.deleteTask(full, o))
	}
	return wrapErr("delete", path, err)
}

func (k *core) deleteOnce(ctx context.Context, conn *zk.Conn, full string, o deleteOptions) error {
	err := k.deleteNode(ctx, conn, full, o.version)
	if !errors.Is(err, zk.ErrNotEmpty) || !o.children {
		return err
	}
	if err := k.deleteChildren(ctx, conn, full); err != nil {
		return err
	}
	return k.deleteNode(ctx, conn, full, o.version)
}

func (k *core) deleteNode(ctx context.Context, conn *zk.Conn, full string, version int32) error {
	_, err := do(ctx, k, func() (struct{}, error) {
		return struct{}{}, conn.Delete(full, version)
	})
	return err
}

// deleteChildren deletes every descendant of path, depth first; nodes that vanish
// meanwhile are fine, and children added meanwhile are deleted too.
func (k *core) deleteChildren(ctx context.Context, conn *zk.Conn, path string) error {
	children, err := do(ctx, k, func() ([]string, error) {
		ch, _, err := conn.Children(path)
		return ch, err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, name := range children {
		child := JoinPath(path, name)
		for {
			if err := k.deleteChildren(ctx, conn, child); err != nil {
				return err
			}
			err := k.deleteNode(ctx, conn, child, -1)
			if errors.Is(err, zk.ErrNotEmpty) {
				continue // a child appeared meanwhile
			}
			if err != nil && !errors.Is(err, zk.ErrNoNode) {
				return err
			}
			break
		}
	}
	return nil
}
