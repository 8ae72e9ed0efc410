package shared

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
	"github.com/zkcurator/zkcurator/recipes/internal/versioned"
)

// VersionedValue is a value with the node version it was read or written at,
// as Curator's VersionedValue. Pass Version to TrySet.
type VersionedValue[T any] struct {
	Version int32
	Value   T
}

// refreshRetry is the pause before reading again after a read failed (the
// client's retry policy gave up, for example during a long partition).
const refreshRetry = 500 * time.Millisecond

// core is the value machinery shared by SharedValue and SharedCount.
type core[T any] struct {
	c      *framework.Client
	path   string
	seed   []byte
	decode func(path string, b []byte) (T, error)
	met    trySetMetrics

	life lifecycle.Lifecycle // Started once the first read is in and following runs

	mu      sync.Mutex
	cur     VersionedValue[T]
	mzxid   int64 // of cur; values are adopted only when newer
	czxid   int64 // of the node cur was read from
	pending []VersionedValue[T]

	wake     chan struct{} // the pump has pending values
	reread   chan struct{} // the connection came back: read again
	changes  chan VersionedValue[T]
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stopConn func()
}

func newCore[T any](c *framework.Client, path string, seed []byte, decode func(string, []byte) (T, error)) (*core[T], error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil client for the shared value at %q", ErrInvalidArgument, path)
	}
	if err := framework.ValidatePath(path); err != nil {
		return nil, fmt.Errorf("%w: shared value path: %w", ErrInvalidArgument, err)
	}
	if path == "/" {
		return nil, fmt.Errorf("%w: shared value path %q: the root cannot hold a value", ErrInvalidArgument, path)
	}
	if seed == nil {
		seed = []byte{}
	}
	if _, err := decode(path, seed); err != nil {
		return nil, fmt.Errorf("%w: seed: %w", ErrInvalidArgument, err)
	}
	return &core[T]{
		c: c, path: path, seed: seed, decode: decode, met: newTrySetMetrics(c),
		life:    lifecycle.New(&lifeErrors),
		wake:    make(chan struct{}, 1),
		reread:  make(chan struct{}, 1),
		changes: make(chan VersionedValue[T]),
	}, nil
}

// start creates the node with the seed if needed, reads it with a watch and
// starts following it until close or the client's Close.
func (k *core[T]) start(ctx context.Context) error {
	if err := k.life.Start(k.path); err != nil {
		return err
	}
	if err := k.load(ctx); err != nil {
		k.life.Unstart() // a failed Start may be tried again
		return err
	}
	return nil
}

// load reads the value and starts following it, unless close came first.
func (k *core[T]) load(ctx context.Context) error {
	select {
	case <-k.c.Done():
		return fmt.Errorf("shared: start %s: %w", k.path, framework.ErrClosed)
	default:
	}
	_, err := k.c.Create(ctx, k.path, k.seed, framework.CreatingParentContainersIfNeeded())
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("shared: create %s: %w", k.path, err)
	}
	data, stat, watch, err := k.c.GetDataW(ctx, k.path)
	if err != nil {
		return fmt.Errorf("shared: read %s: %w", k.path, err)
	}
	v, err := k.decode(k.path, data)
	if err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.life.State() == lifecycle.Closed {
		return fmt.Errorf("%w: start %s", ErrClosed, k.path)
	}
	k.cur, k.mzxid, k.czxid = VersionedValue[T]{Version: stat.Version, Value: v}, stat.Mzxid, stat.Czxid
	runCtx, cancel := context.WithCancel(context.Background())
	k.cancel = cancel
	k.stopConn = k.c.Listen(func(st framework.ConnectionState) {
		if st == framework.Reconnected {
			signal(k.reread)
		}
	})
	k.wg.Add(3)
	go func() { // the client's Close ends the following too
		defer k.wg.Done()
		select {
		case <-k.c.Done():
			cancel()
		case <-runCtx.Done():
		}
	}()
	go k.follow(runCtx, watch)
	go k.pump(runCtx)
	return nil
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// followingLocked reports whether load got as far as following the node.
// k.mu must be held.
func (k *core[T]) followingLocked() bool { return k.cancel != nil }

// value returns the latest adopted value.
func (k *core[T]) value() VersionedValue[T] {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.cur
}

func (k *core[T]) ready() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.life.State() == lifecycle.Started && !k.followingLocked() {
		return fmt.Errorf("%w: %s", ErrNotStarted, k.path) // its first read is not in yet
	}
	return k.life.Check(k.path)
}

// adopt takes data read or written at stat as the value if it is newer than
// the one held, and queues it for Changes.
func (k *core[T]) adopt(data []byte, stat *zk.Stat) {
	v, err := k.decode(k.path, data)
	k.mu.Lock()
	defer k.mu.Unlock()
	if stat.Mzxid <= k.mzxid || k.life.State() == lifecycle.Closed {
		return
	}
	if err != nil {
		k.c.Logger().Sugar().Warnw("shared: skipping a value that does not decode", "path", k.path, "version", stat.Version, "error", err)
		return
	}
	k.cur, k.mzxid, k.czxid = VersionedValue[T]{Version: stat.Version, Value: v}, stat.Mzxid, stat.Czxid
	k.pending = append(k.pending, k.cur)
	signal(k.wake)
}

// set writes data whatever the node's version.
func (k *core[T]) set(ctx context.Context, data []byte) error {
	if err := k.ready(); err != nil {
		return err
	}
	stat, err := k.c.SetData(ctx, k.path, data, -1)
	if err != nil {
		return fmt.Errorf("shared: set %s: %w", k.path, err)
	}
	k.adopt(data, stat)
	return nil
}

// trySet writes data if the node's version is version.
func (k *core[T]) trySet(ctx context.Context, data []byte, version int32) (applied bool, err error) {
	if err := k.ready(); err != nil {
		return false, err
	}
	defer func() { k.met.record(applied, err) }()
	k.mu.Lock()
	czxid := k.czxid
	k.mu.Unlock()
	stat, err := versioned.Set(ctx, k.c, k.path, data, &zk.Stat{Version: version, Czxid: czxid})
	if err == nil {
		k.adopt(data, stat)
		return true, nil
	}
	k.refresh(ctx) // learn the newer value, as Curator does
	if errors.Is(err, ErrOutcomeUnknown) || !(errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode)) {
		return false, fmt.Errorf("shared: try set %s at version %d: %w", k.path, version, err)
	}
	return false, nil
}

// refresh reads the node once without a watch and adopts what it finds.
func (k *core[T]) refresh(ctx context.Context) {
	if data, stat, err := k.c.GetData(ctx, k.path); err == nil {
		k.adopt(data, stat)
	}
}

// follow reads the node again whenever its watch fires or the connection
// comes back, until ctx ends.
func (k *core[T]) follow(ctx context.Context, watch <-chan zk.Event) {
	defer k.wg.Done()
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-watch:
		case <-k.reread:
		case <-retry:
		}
		retry = nil
		var err error
		if watch, err = k.watch(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			k.c.Logger().Sugar().Debugw("shared: reading the value failed; trying again", "path", k.path, "error", err)
			retry = time.After(refreshRetry)
		}
	}
}

// watch reads the node with a watch and adopts its value; when the node is
// missing it watches for its creation instead.
func (k *core[T]) watch(ctx context.Context) (<-chan zk.Event, error) {
	for i := 0; i < 3; i++ {
		data, stat, watch, err := k.c.GetDataW(ctx, k.path)
		if err == nil {
			k.adopt(data, stat)
			return watch, nil
		}
		if !errors.Is(err, zk.ErrNoNode) {
			return nil, err
		}
		stat, watch, err = k.c.ExistsW(ctx, k.path)
		if err != nil || stat == nil {
			return watch, err
		}
		// Created between the two reads: read it.
	}
	return nil, fmt.Errorf("shared: %s keeps being deleted and created", k.path)
}

// pump delivers queued values on changes in order until ctx ends.
func (k *core[T]) pump(ctx context.Context) {
	defer k.wg.Done()
	for {
		k.mu.Lock()
		batch := k.pending
		k.pending = nil
		k.mu.Unlock()
		for _, v := range batch {
			select {
			case k.changes <- v:
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-k.wake:
		case <-ctx.Done():
			return
		}
	}
}

// close stops following the node and closes changes.
func (k *core[T]) close() error {
	if first, _ := k.life.Close(); !first {
		return nil
	}
	k.mu.Lock()
	started := k.followingLocked()
	k.pending = nil
	k.mu.Unlock()
	if started {
		k.stopConn()
		k.cancel()
		k.wg.Wait()
	}
	close(k.changes)
	return nil
}
