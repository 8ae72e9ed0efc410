package nodes

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/apply"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// PersistentTTLNode keeps a node alive through a TTL, as Curator's
// PersistentTtlNode: the node is a container kept by a PersistentNode, and
// a child (default "touch") is a PersistentWithTTL node set every
// TTL/factor. When every keeper of the path has stopped, the child outlives
// its TTL, the server deletes it, and then the empty container. The server
// must allow TTL nodes (zookeeper.extendedTypesEnabled=true).
type PersistentTTLNode struct {
	c     *framework.Client
	node  *PersistentNode
	child string
	ttl   time.Duration
	every time.Duration

	touched chan struct{} // closed by the first touch
	stopped chan struct{} // closed when the toucher has ended
	cancel  context.CancelFunc

	mu    sync.Mutex
	life  lifecycle.Lifecycle // moved under mu, so that Close finds what Start set up
	fatal error
}

// NewPersistentTTLNode returns a TTL node at path holding data, whose child
// lives for ttl after each touch. It makes no network call: a nil client, a
// bad path, a TTL outside 1ms..2^40-1ms or a bad or nil option is an error matching
// ErrInvalidArgument.
func NewPersistentTTLNode(c *framework.Client, path string, ttl time.Duration, data []byte, opts ...PersistentTTLNodeOption) (*PersistentTTLNode, error) {
	if err := validateTarget(c, path); err != nil {
		return nil, err
	}
	if err := validateTTL(ttl); err != nil {
		return nil, err
	}
	cfg := ttlConfig{child: DefaultChildNodeName, factor: DefaultTouchScheduleFactor}
	if err := apply.Options(&cfg, opts, ErrInvalidArgument, fmt.Sprintf("the TTL node at %q", path)); err != nil {
		return nil, err
	}
	if err := cfg.validate(path, ttl); err != nil {
		return nil, err
	}
	node, err := NewPersistentNode(c, path, framework.Container, data)
	if err != nil {
		return nil, err
	}
	node.closeOpts = []framework.DeleteOption{framework.DeletingChildrenIfNeeded()}
	return &PersistentTTLNode{
		c: c, node: node, ttl: ttl,
		life:    lifecycle.New(&lifeErrors),
		child:   framework.JoinPath(path, cfg.child),
		every:   ttl / time.Duration(cfg.factor),
		touched: make(chan struct{}),
		stopped: make(chan struct{}),
	}, nil
}

// Start begins keeping the container and touching its child, and returns
// at once. A second Start returns ErrAlreadyStarted; on a closed client it
// returns an error matching framework.ErrClosed.
func (t *PersistentTTLNode) Start() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.life.Start(t.node.base); err != nil {
		return err
	}
	if err := t.node.Start(); err != nil {
		t.life.Unstart() // the client is closed: stay latent, as the node does
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel = cancel
	go t.touchLoop(ctx)
	return nil
}

// WaitForInitialCreate waits until the container is made and its child
// touched once. On a server without TTL nodes it returns an error matching
// framework.ErrTTLNotEnabled; see PersistentNode.WaitForInitialCreate for
// the rest.
func (t *PersistentTTLNode) WaitForInitialCreate(ctx context.Context) error {
	if err := t.node.WaitForInitialCreate(ctx); err != nil {
		return err
	}
	select {
	case <-t.touched:
		return nil
	case <-t.stopped:
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.fatal != nil {
			return t.fatal
		}
		return fmt.Errorf("%w: %s", ErrClosed, t.node.base)
	case <-ctx.Done():
		return fmt.Errorf("nodes: waiting for the first touch of %s: %w", t.child, ctx.Err())
	}
}

// Path returns the container's path once made; see PersistentNode.Path.
func (t *PersistentTTLNode) Path() string { return t.node.Path() }

// SetData sets the container's data; see PersistentNode.SetData.
func (t *PersistentTTLNode) SetData(ctx context.Context, data []byte) error {
	return t.node.SetData(ctx, data)
}

// Data returns a copy of the container's data.
func (t *PersistentTTLNode) Data() []byte { return t.node.Data() }

// Close stops touching the child and deletes the child and the container
// (guaranteed), rather than leaving them to the TTL as Curator does: nothing
// a recipe made outlives its Close. Another keeper of the same path makes
// both again within its touch interval. A second Close returns nil.
func (t *PersistentTTLNode) Close(ctx context.Context) error {
	t.mu.Lock()
	_, was := t.life.Close()
	t.mu.Unlock()
	if was == lifecycle.Started {
		t.cancel()
		<-t.stopped
	}
	return t.node.Close(ctx)
}

// touchLoop touches the child once the container stands, then every
// interval until ctx ends or the client closes.
func (t *PersistentTTLNode) touchLoop(ctx context.Context) {
	defer close(t.stopped)
	select {
	case <-ctx.Done():
		return
	case <-t.node.stopped:
		return
	case <-t.node.created:
	}
	tick := time.NewTicker(t.every)
	defer tick.Stop()
	for {
		err := t.touch(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, framework.ErrTTLNotEnabled), errors.Is(err, framework.ErrClosed):
			t.mu.Lock()
			t.fatal = fmt.Errorf("nodes: touch %s: %w", t.child, err)
			t.mu.Unlock()
			return
		case err != nil:
			t.c.Logger().Debug("nodes: touching a TTL node failed", zap.String("path", t.child), zap.Error(err))
		default:
			closeOnce(t.touched)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// touch sets the child's data, making it when it is missing. A missing
// container is left to the container's keeper (the next touch makes the
// child in it).
func (t *PersistentTTLNode) touch(ctx context.Context) error {
	_, err := t.c.SetData(ctx, t.child, []byte{}, -1)
	if !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	_, err = t.c.Create(ctx, t.child, []byte{}, framework.WithMode(framework.PersistentWithTTL), framework.WithTTL(t.ttl))
	switch {
	case errors.Is(err, zk.ErrNodeExists):
		_, err = t.c.SetData(ctx, t.child, []byte{}, -1)
		return err
	case errors.Is(err, zk.ErrNoNode):
		t.node.poke()
		return err
	}
	return err
}
