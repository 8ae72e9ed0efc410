package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/clock"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// engine is what the four item queues share: the lifecycle, the put and the
// consumer loop. The typed queues wrap it with their serializer and names.
type engine struct {
	c      *framework.Client
	kind   string
	path   string
	cfg    config
	naming naming
	// consume is nil for a producer-only queue. It decodes an item's
	// envelope and hands each item to the consumer; see itemResult. rest
	// is the envelope of the items not consumed, when some but not all
	// were.
	consume func(ctx context.Context, name string, data []byte) (res itemResult, rest []byte)
	log     *zap.Logger
	clock   clock.Clock // cfg.clock, or the wall clock

	mu         sync.Mutex
	life       lifecycle.Lifecycle // moved under mu
	cancel     context.CancelFunc
	done       chan struct{}
	stopListen func()
	wake       chan struct{}
	hold       *hold // the item being consumed in lock path mode
	// stale holds the lock nodes whose deletion failed, with the session
	// that owns them; see unlock.
	stale map[string]itemLock
}

func newEngine(kind string, c *framework.Client, path string, cfg config, n naming) *engine {
	return &engine{c: c, kind: kind, path: path, cfg: cfg, naming: n, clock: clock.Or(cfg.clock),
		log:  c.Logger().With(zap.String("recipe", kind), zap.String("path", path)),
		life: lifecycle.New(&lifeErrors),
		wake: make(chan struct{}, 1), stale: make(map[string]itemLock)}
}

// start creates the queue node (and the lock node) as Curator does, then
// starts the consumer loop if there is a consumer.
func (e *engine) start(ctx context.Context) error {
	e.mu.Lock()
	err := e.life.Start(e.what())
	e.mu.Unlock()
	if err != nil {
		return err
	}
	for _, p := range []string{e.path, e.cfg.lockPath} {
		if p == "" {
			continue
		}
		if err := e.ensure(ctx, p); err != nil {
			e.mu.Lock()
			e.life.Unstart()
			e.mu.Unlock()
			return fmt.Errorf("queue: start the %s at %s: creating %s: %w", e.kind, e.path, p, err)
		}
	}
	if e.consume == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.life.State() == lifecycle.Closed {
		return fmt.Errorf("%w: %s (closed while starting)", ErrClosed, e.what())
	}
	loopCtx, cancel := context.WithCancelCause(context.Background())
	e.cancel, e.done = func() { cancel(nil) }, make(chan struct{})
	e.stopListen = e.c.Listen(e.onState)
	go func() {
		defer close(e.done)
		// Nothing outlives the client's Close: it ends the loop, and the
		// ctx of the item being consumed, with the cause framework.ErrClosed.
		untilClosed := make(chan struct{})
		go func() {
			defer close(untilClosed)
			select {
			case <-e.c.Done():
				cancel(framework.ErrClosed)
			case <-loopCtx.Done():
			}
		}()
		defer func() { cancel(nil); <-untilClosed }()
		e.run(loopCtx)
	}()
	return nil
}

// ensure creates p, a persistent node with container parents, as Curator's
// start does; an existing node is fine.
func (e *engine) ensure(ctx context.Context, p string) error {
	_, err := e.c.Create(ctx, p, nil, framework.CreatingParentContainersIfNeeded())
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	return nil
}

// close stops the consumer loop and waits until it returned: the item being
// consumed gets a cancelled ctx, and its lock node is deleted (a lock node
// whose deletion failed before is tried once more).
func (e *engine) close() error {
	e.mu.Lock()
	if first, _ := e.life.Close(); !first {
		e.mu.Unlock()
		return nil
	}
	cancel, done, stop := e.cancel, e.done, e.stopListen
	e.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
		stop()
	}
	ctx, end := afterwards(context.Background(), e.c)
	defer end()
	e.sweep(ctx)
	return nil
}

// checkStarted returns the error of a put or remove on a queue that is not
// started or is closed.
func (e *engine) checkStarted() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.life.Check(e.what())
	if errors.Is(err, ErrNotStarted) {
		return fmt.Errorf("%w (call Start first)", err)
	}
	return err
}

// what names the queue in its errors: its kind and path.
func (e *engine) what() string { return e.kind + " at " + e.path }

// onState runs on the client's listener goroutine: an error state (per the
// client's ErrorPolicy) cancels the item being consumed, and a new
// connection wakes the loop, since watches cannot fire while disconnected.
func (e *engine) onState(s framework.ConnectionState) {
	if e.c.ErrorPolicy().IsErrorState(s) {
		e.mu.Lock()
		if e.hold != nil {
			e.hold.cancel(ErrItemLost)
		}
		e.mu.Unlock()
	}
	if s.IsConnected() || s == framework.Lost {
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
}
