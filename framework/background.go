package framework

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/retry"
)

// Backoff of background (guaranteed) operations between attempts.
const (
	bgMinSleep = 50 * time.Millisecond
	bgMaxSleep = 2 * time.Second
)

// bgTask is a guaranteed operation: run is attempted, across reconnects, until it
// returns nil or an error that is neither retryable nor a ctx error.
type bgTask struct {
	what string // for logs
	path string
	run  func(ctx context.Context, conn *zk.Conn) error
}

// background runs guaranteed operations (Curator's FailedDeleteManager and
// FindAndDeleteProtectedNodeInBackground) one at a time, in order.
type background struct {
	k      *core
	ctx    context.Context // cancelled when Close stops waiting for the queue
	cancel context.CancelFunc

	mu      sync.Mutex
	tasks   []bgTask
	pending int           // queued plus running
	idle    chan struct{} // closed while pending == 0
	wake    chan struct{}
}

func newBackground(k *core) *background {
	ctx, cancel := context.WithCancel(context.Background())
	idle := make(chan struct{})
	close(idle)
	return &background{k: k, ctx: ctx, cancel: cancel, idle: idle, wake: make(chan struct{}, 1)}
}

func (b *background) add(t bgTask) {
	b.mu.Lock()
	if b.ctx.Err() != nil {
		b.mu.Unlock()
		b.k.log.Warn("client closed: dropping a guaranteed operation", zap.String("op", t.what), zap.String("path", t.path))
		return
	}
	if b.pending == 0 {
		b.idle = make(chan struct{})
	}
	b.pending++
	b.tasks = append(b.tasks, t)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// run executes queued tasks until the context is cancelled.
func (b *background) run() {
	for {
		b.mu.Lock()
		var t bgTask
		ok := len(b.tasks) > 0
		if ok {
			t = b.tasks[0]
			b.tasks = b.tasks[1:]
		}
		b.mu.Unlock()
		if !ok {
			select {
			case <-b.ctx.Done():
				return
			case <-b.wake:
				continue
			}
		}
		b.execute(t)
		b.mu.Lock()
		b.pending--
		if b.pending == 0 {
			close(b.idle)
		}
		b.mu.Unlock()
	}
}

func (b *background) execute(t bgTask) {
	sleep := bgMinSleep
	for {
		conn, err := b.k.waitReady(b.ctx, 0, true)
		if err == nil {
			err = t.run(b.ctx, conn)
		}
		switch {
		case err == nil:
			b.k.log.Debug("guaranteed operation done", zap.String("op", t.what), zap.String("path", t.path))
			return
		case b.ctx.Err() != nil:
			b.k.log.Warn("client closed before a guaranteed operation finished",
				zap.String("op", t.what), zap.String("path", t.path), zap.Error(err))
			return
		case !retry.IsRetryable(err):
			b.k.log.Warn("guaranteed operation failed; giving up",
				zap.String("op", t.what), zap.String("path", t.path), zap.Error(err))
			return
		}
		if sleepCtx(b.ctx, nil, sleep) != nil {
			continue // reported at the top of the loop
		}
		sleep = min(2*sleep, bgMaxSleep)
	}
}

// drain waits up to d for the queue to empty, then stops the worker.
func (b *background) drain(d time.Duration) {
	b.mu.Lock()
	idle, pending := b.idle, b.pending
	b.mu.Unlock()
	if pending > 0 {
		t := time.NewTimer(d)
		select {
		case <-idle:
		case <-t.C:
			b.k.log.Warn("closing with guaranteed operations still pending", zap.Int("pending", pending))
		}
		t.Stop()
	}
	b.mu.Lock()
	b.cancel()
	b.mu.Unlock()
}

// deleteTask is the background half of a guaranteed delete: an absent node is success.
func (k *core) deleteTask(full string, o deleteOptions) bgTask {
	return bgTask{what: "delete", path: full, run: func(ctx context.Context, conn *zk.Conn) error {
		err := k.deleteOnce(ctx, conn, full, o)
		if errors.Is(err, zk.ErrNoNode) {
			return nil
		}
		return err
	}}
}

// protectedCleanupTask deletes whatever node a failed protected create may have left in
// parent: the node a create still under way makes, or any child with protected id id.
func (k *core) protectedCleanupTask(parent, id string, inflight <-chan result[string]) bgTask {
	return bgTask{what: "delete protected node", path: JoinPath(parent, protection.Name(id, "")), run: func(ctx context.Context, conn *zk.Conn) error {
		if inflight != nil {
			select {
			case r := <-inflight:
				inflight = nil
				if r.err == nil {
					if err := k.deleteNode(ctx, conn, r.val, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
						return err
					}
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		for {
			children, err := do(ctx, k, func() ([]string, error) {
				ch, _, err := conn.Children(parent)
				return ch, err
			})
			if errors.Is(err, zk.ErrNoNode) {
				return nil
			}
			if err != nil {
				return err
			}
			name, ok := protection.Find(children, id)
			if !ok {
				return nil
			}
			k.log.Info("deleting the node of a failed protected create", zap.String("path", JoinPath(parent, name)))
			if err := k.deleteNode(ctx, conn, JoinPath(parent, name), -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return err
			}
		}
	}}
}
