package framework

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/internal/testhook"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/retry"
)

func init() {
	testhook.HoldBackground = func(c any) func() <-chan struct{} { return c.(*Client).core.bg.hold() }
}

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
	// done, when not nil, is closed once the task has finished or was dropped;
	// creates with the same caller-kept protected id wait for it (see
	// awaitCleanup).
	done chan struct{}
}

// background runs guaranteed operations (Curator's FailedDeleteManager and
// FindAndDeleteProtectedNodeInBackground) one at a time, in order.
type background struct {
	k      *core
	ctx    context.Context // cancelled when Close stops waiting for the queue
	cancel context.CancelFunc

	mu       sync.Mutex
	tasks    []bgTask
	pending  int           // queued plus running
	idle     chan struct{} // closed while pending == 0
	wake     chan struct{}
	holds    int                      // while above 0, no task starts (testhook.HoldBackground)
	cleaning map[string]chan struct{} // by task path: the done of the last clean-up queued
}

func newBackground(k *core) *background {
	ctx, cancel := context.WithCancel(context.Background())
	idle := make(chan struct{})
	close(idle)
	return &background{k: k, ctx: ctx, cancel: cancel, idle: idle, wake: make(chan struct{}, 1), cleaning: make(map[string]chan struct{})}
}

func (b *background) add(t bgTask) {
	b.mu.Lock()
	if b.ctx.Err() != nil {
		b.mu.Unlock()
		b.k.log.Warn("client closed: dropping a guaranteed operation", zap.String("op", t.what), zap.String("path", t.path))
		b.k.reportError(&abandoned{what: t.what, path: t.path, err: ErrClosed})
		if t.done != nil {
			close(t.done)
		}
		return
	}
	if t.done != nil {
		b.cleaning[t.path] = t.done
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
		ok := len(b.tasks) > 0 && b.holds == 0
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
		if t.done != nil {
			close(t.done)
			if b.cleaning[t.path] == t.done {
				delete(b.cleaning, t.path)
			}
		}
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
			b.k.reportError(&abandoned{what: t.what, path: t.path, err: errors.Join(ErrClosed, err)})
			return
		case !retry.IsRetryable(err):
			b.k.log.Warn("guaranteed operation failed; giving up",
				zap.String("op", t.what), zap.String("path", t.path), zap.Error(err))
			b.k.reportError(&abandoned{what: t.what, path: t.path, err: err})
			return
		}
		if sleepCtx(b.ctx, nil, sleep) != nil {
			continue // reported at the top of the loop
		}
		sleep = min(2*sleep, bgMaxSleep)
	}
}

// hold keeps tasks from starting until resume, which returns a channel closed
// once the queue has run empty (testhook.HoldBackground).
func (b *background) hold() (resume func() <-chan struct{}) {
	b.mu.Lock()
	b.holds++
	b.mu.Unlock()
	var once sync.Once
	return func() <-chan struct{} {
		b.mu.Lock()
		once.Do(func() { b.holds-- })
		idle := b.idle
		b.mu.Unlock()
		select {
		case b.wake <- struct{}{}:
		default:
		}
		return idle
	}
}

// awaitCleanup waits until the clean-ups queued so far for the protected name
// prefix key (see protectedCleanupTask) have finished.
func (b *background) awaitCleanup(ctx context.Context, key string) error {
	b.mu.Lock()
	done := b.cleaning[key]
	b.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-b.ctx.Done():
		return ErrClosed
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

// protectedCleanupTask deletes what a failed protected create may have made in parent:
// the node of a create still under way when it failed, and any child with protected id
// id, but only while no one has written it since its creation (version 0): a node
// written since is in use (a lock driver adopted it) and is left alone. With a
// caller-kept id (kept) a later create of this client with the same id waits until the
// clean-up is done (awaitCleanup), so the clean-up never meets a node a later create made.
func (k *core) protectedCleanupTask(parent, id string, kept bool, inflight <-chan result[string]) bgTask {
	t := bgTask{what: "delete protected node", path: protectedPrefix(parent, id)}
	if kept {
		t.done = make(chan struct{})
	}
	t.run = func(ctx context.Context, conn *zk.Conn) error {
		if inflight != nil {
			select {
			case r := <-inflight:
				inflight = nil
				if r.err == nil {
					if err := k.deleteUnwritten(ctx, conn, r.val); err != nil {
						return err
					}
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
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
		for _, name := range children {
			if got, ok := protection.ID(name); ok && got == id {
				if err := k.deleteUnwritten(ctx, conn, JoinPath(parent, name)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return t
}

// protectedPrefix is the path of parent's children with protected id id, up to
// their names: what a clean-up of a failed create with id in parent is known by.
func protectedPrefix(parent, id string) string { return JoinPath(parent, protection.Name(id, "")) }

// deleteUnwritten deletes the node at full if it has not been written since its
// creation; a node that is gone or was written counts as done.
func (k *core) deleteUnwritten(ctx context.Context, conn *zk.Conn, full string) error {
	err := k.deleteNode(ctx, conn, full, 0)
	switch {
	case err == nil:
		k.log.Info("deleted the node of a failed protected create", zap.String("path", full))
	case errors.Is(err, zk.ErrBadVersion):
		k.log.Info("kept the node of a failed protected create: it has been written since", zap.String("path", full))
	case !errors.Is(err, zk.ErrNoNode):
		return err
	}
	return nil
}
