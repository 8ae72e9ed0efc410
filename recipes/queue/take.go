package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// itemResult is what became of one item node's consumption.
type itemResult int

const (
	itemDone    itemResult = iota // every item consumed (or Delete mode): delete the node
	itemRequeue                   // a consumer failed in Requeue mode: put the node back
	itemLost                      // the consumer's ctx ended: leave the node for the next consumer
	itemRest                      // itemLost after some of the node's items: keep only the rest in it
)

// take consumes one item node. Without a lock path it is Curator's
// processNormally: read, delete (at most once), then consume, so an item is
// received once but lost if its consumer dies. With a lock path it is
// processWithLockSafety (see takeLocked). busy, when not nil, fires when the
// lock of an item another consumer holds goes away.
func (e *engine) take(ctx context.Context, name string) (busy <-chan zk.Event, err error) {
	if e.cfg.lockPath != "" {
		return e.takeLocked(ctx, name)
	}
	itemPath := framework.JoinPath(e.path, name)
	data, stat, err := e.c.GetData(ctx, itemPath)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil // another consumer took it
	}
	if err != nil {
		return nil, err
	}
	taken, unknown, err := e.deleteOnce(ctx, itemPath, stat.Version)
	if unknown {
		e.log.Warn("queue: an item's delete lost its reply and the item is gone; it is not delivered here, since another consumer may have taken it",
			zap.String("item", itemPath))
		return nil, nil
	}
	if !taken || err != nil {
		return nil, err
	}
	e.consume(ctx, name, data)
	return nil, nil
}

// deleteOnce deletes an item node at version, sending the delete at most
// once. taken is false when another consumer deleted it first or it is
// still there; unknown is true when the reply was lost and the node is
// gone, so that this consumer cannot tell who took it.
func (e *engine) deleteOnce(ctx context.Context, itemPath string, version int32) (taken, unknown bool, err error) {
	return deleteAtMostOnce(ctx, e.c, itemPath, version)
}

func deleteAtMostOnce(ctx context.Context, c *framework.Client, itemPath string, version int32) (taken, unknown bool, err error) {
	_, err = c.TransactionOnce(ctx, &zk.DeleteRequest{Path: itemPath, Version: version})
	switch {
	case err == nil:
		return true, false, nil
	case errors.Is(err, zk.ErrNoNode), errors.Is(err, zk.ErrBadVersion):
		return false, false, nil
	case errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, framework.ErrNotConnected):
		stat, serr := c.Exists(ctx, itemPath)
		if serr != nil || stat != nil {
			return false, false, errors.Join(err, serr) // still there: try again later
		}
		return false, true, err
	}
	return false, false, err
}

// consumeItems decodes an item node's envelope and hands each item to fn,
// as Curator's processMessageBytes: an envelope that cannot be decoded is
// logged and counts as done (it is deleted); in Requeue mode with a lock
// path the first failing item stops the node's consumption. rest is the
// envelope of the items from the one that stopped it on, when it was not
// the first, so that those consumed already are not put back.
func consumeItems[T any](e *engine, s Serializer[T], fn Consumer[T], ctx context.Context, name string, data []byte) (res itemResult, rest []byte) {
	raws, err := decodeEnvelope(data)
	items := make([]T, 0, len(raws))
	for i := 0; err == nil && i < len(raws); i++ {
		var it T
		if it, err = s.Deserialize(raws[i]); err == nil {
			items = append(items, it)
		}
	}
	if err != nil {
		e.log.Error("queue: corrupted queue item, dropped", zap.String("item", name), zap.Error(err))
		return itemDone, nil
	}
	for i, it := range items {
		err := call(fn, ctx, it)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return itemLost, remaining(raws, i)
		}
		e.log.Error("queue: the consumer failed", zap.String("item", name), zap.Error(err))
		if e.cfg.lockPath != "" && e.cfg.errorMode == Requeue {
			return itemRequeue, remaining(raws, i)
		}
	}
	return itemDone, nil
}

// remaining returns the envelope of raws[i:], or nil when i is 0 (nothing
// was consumed: the node's data stands as it is).
func remaining(raws [][]byte, i int) []byte {
	if i == 0 {
		return nil
	}
	env, err := encodeEnvelope(raws[i:])
	if err != nil {
		return nil // cannot happen: a part of an envelope that was put
	}
	return env
}

// call runs fn, turning a panic into an error.
func call[T any](fn Consumer[T], ctx context.Context, it T) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("queue: the consumer panicked: %v", r)
		}
	}()
	return fn(ctx, it)
}
