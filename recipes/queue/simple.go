package queue

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// SimpleDistributedQueue is Curator's SimpleDistributedQueue (ZooKeeper's
// own queue recipe): raw byte items as PERSISTENT_SEQUENTIAL "qn-" nodes
// under a container path, without an envelope, taken in sequence order by
// whoever deletes them first. It is safe for concurrent use and keeps no
// state, so it has no Start or Close.
type SimpleDistributedQueue struct {
	c    *framework.Client
	path string
}

// NewSimpleDistributedQueue returns the queue at path, or an error matching
// ErrInvalidArgument for a nil client or a bad path. It makes no network
// call.
func NewSimpleDistributedQueue(c *framework.Client, path string) (*SimpleDistributedQueue, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil client for the simple distributed queue at %q", ErrInvalidArgument, path)
	}
	if err := validatePath("simple distributed queue", path); err != nil {
		return nil, err
	}
	return &SimpleDistributedQueue{c: c, path: path}, nil
}

// Offer adds data (at most MaxNodeData bytes) and returns its node's path;
// the queue path and its parents are created as containers when missing. A
// put whose reply was lost returns ErrOutcomeUnknown and is not sent again.
func (q *SimpleDistributedQueue) Offer(ctx context.Context, data []byte) (string, error) {
	if len(data) > MaxNodeData {
		return "", fmt.Errorf("%w: item of %d bytes for %s, over ZooKeeper's node limit of %d bytes", ErrInvalidArgument, len(data), q.path, MaxNodeData)
	}
	if data == nil {
		data = []byte{}
	}
	create := &zk.CreateRequest{Path: framework.JoinPath(q.path, simplePrefix), Data: data, Flags: zk.FlagSequence}
	if err := checkRequest(q.c, create.Path, data); err != nil {
		return "", err
	}
	made := false
	for {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("queue: offer to %s (not sent): %w", q.path, err)
		}
		res, err := q.c.TransactionOnce(ctx, create)
		switch {
		case err == nil:
			return res[0].String, nil
		case errors.Is(err, zk.ErrNoNode) && !made:
			if err := q.c.CreateContainers(ctx, q.path); err != nil {
				return "", fmt.Errorf("queue: offer to %s: creating the queue path: %w", q.path, err)
			}
			made = true
			continue
		case errors.Is(err, framework.ErrNotConnected):
			if ctx.Err() == nil {
				continue // nothing was sent: try again within ctx
			}
			return "", fmt.Errorf("queue: offer to %s (not sent): %w", q.path, err)
		case errors.Is(err, zk.ErrConnectionClosed) || ctx.Err() != nil:
			return "", fmt.Errorf("queue: offer to %s: %w: %w", q.path, ErrOutcomeUnknown, err)
		}
		return "", fmt.Errorf("queue: offer to %s: %w", q.path, err)
	}
}

// Peek returns the head's data without removing it; ok is false when the
// queue is empty (Curator's peek).
func (q *SimpleDistributedQueue) Peek(ctx context.Context) (data []byte, ok bool, err error) {
	data, ok, _, err = q.head(ctx, false, false)
	return data, ok, err
}

// Element is Peek with ErrEmpty for an empty queue (Curator's element).
func (q *SimpleDistributedQueue) Element(ctx context.Context) ([]byte, error) {
	return orEmpty(q.Peek(ctx))
}

// Remove removes and returns the head, or ErrEmpty (Curator's remove).
func (q *SimpleDistributedQueue) Remove(ctx context.Context) ([]byte, error) {
	return orEmpty(q.Poll(ctx, 0))
}

// Take removes and returns the head, waiting within ctx for an item.
func (q *SimpleDistributedQueue) Take(ctx context.Context) ([]byte, error) {
	data, _, err := q.take(ctx)
	return data, err
}

// take is Take; empty tells that its error came from waiting on a queue
// it saw empty, rather than from a request.
func (q *SimpleDistributedQueue) take(ctx context.Context) (data []byte, empty bool, err error) {
	for {
		data, ok, watch, err := q.head(ctx, true, true)
		if err != nil || ok {
			return data, false, err
		}
		if err := q.await(ctx, watch); err != nil {
			return nil, true, fmt.Errorf("queue: take from %s: waiting for an item: %w", q.path, err)
		}
	}
}

// Poll removes and returns the head, waiting up to wait (0: not at all) for
// an item; ok is false when none came. wait bounds the whole call; a wait
// that passed before the queue could be read (no connection) is an error.
//
// A removal whose reply was lost, with the node gone afterwards, returns
// the data with an error matching ErrOutcomeUnknown: another consumer may
// have removed it at the same time.
func (q *SimpleDistributedQueue) Poll(ctx context.Context, wait time.Duration) (data []byte, ok bool, err error) {
	if wait < 0 {
		return nil, false, fmt.Errorf("%w: negative wait %v for %s", ErrInvalidArgument, wait, q.path)
	}
	if wait == 0 {
		data, ok, _, err = q.head(ctx, true, false)
		return data, ok, err
	}
	waitCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	data, empty, err := q.take(waitCtx)
	if empty && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, false, nil // the wait passed on an empty queue, not the caller's ctx
	}
	return data, err == nil || errors.Is(err, ErrOutcomeUnknown), err
}

func (q *SimpleDistributedQueue) await(ctx context.Context, watch <-chan zk.Event) error {
	back := make(chan struct{}, 1)
	stop := q.c.Listen(func(s framework.ConnectionState) {
		if s == framework.Reconnected {
			select {
			case back <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	select {
	case <-watch:
	case <-back:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// head reads (and with remove, deletes) the first "qn-" child, skipping the
// ones another consumer takes first.
func (q *SimpleDistributedQueue) head(ctx context.Context, remove, watch bool) ([]byte, bool, <-chan zk.Event, error) {
	var (
		names []string
		ch    <-chan zk.Event
		err   error
	)
	if watch {
		names, _, ch, err = q.c.ChildrenW(ctx, q.path)
	} else {
		names, _, err = q.c.Children(ctx, q.path)
	}
	if errors.Is(err, zk.ErrNoNode) {
		if !watch {
			return nil, false, nil, nil
		}
		if err := q.c.CreateContainers(ctx, q.path); err != nil {
			return nil, false, nil, fmt.Errorf("queue: creating %s: %w", q.path, err)
		}
		return nil, false, closedEvents(), nil
	}
	if err != nil {
		return nil, false, nil, fmt.Errorf("queue: listing %s: %w", q.path, err)
	}
	sort.Strings(names)
	for _, name := range names {
		if !strings.HasPrefix(name, simplePrefix) {
			continue
		}
		p := framework.JoinPath(q.path, name)
		data, stat, err := q.c.GetData(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, false, nil, fmt.Errorf("queue: reading %s: %w", p, err)
		}
		if !remove {
			return data, true, nil, nil
		}
		taken, unknown, err := deleteAtMostOnce(ctx, q.c, p, stat.Version)
		switch {
		case unknown:
			return data, true, nil, fmt.Errorf("queue: removing %s: %w: %w", p, ErrOutcomeUnknown, err)
		case err != nil:
			return nil, false, nil, fmt.Errorf("queue: removing %s: %w", p, err)
		case taken:
			return data, true, nil, nil
		}
	}
	return nil, false, ch, nil
}

func orEmpty(data []byte, ok bool, err error) ([]byte, error) {
	if err == nil && !ok {
		return nil, ErrEmpty
	}
	return data, err
}
