package discovery

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
)

// CacheListener is told of a ServiceCache's changes, as Curator's
// ServiceCacheListener. Either function may be nil. Both run on the cache's
// own goroutine, in order, and must not block.
type CacheListener struct {
	// CacheChanged is called after an instance was added, updated or
	// removed, once the initial load is complete (never for the load).
	CacheChanged func()
	// StateChanged is called with Suspended, Reconnected or Lost as the
	// cache sees the connection change.
	StateChanged func(framework.ConnectionState)
}

// ServiceCache holds the instances of one service and follows their changes,
// as Curator's ServiceCache: the children of {basePath}/{name}, keyed by node
// name, on recipes/cache's engine.
type ServiceCache[T any] struct {
	c   *framework.Client
	dir string
	pcc *cache.PathChildrenCache

	mu        sync.Mutex
	memo      map[string]decoded[T] // node path -> its instance, as last decoded
	listeners map[int]CacheListener
	nextID    int
	loaded    bool // the initial load is complete: CacheChanged is called
	started   bool
	closed    bool
	wg        sync.WaitGroup
}

// decoded is an instance node's decoded data at one version of one node.
type decoded[T any] struct {
	czxid   int64
	version int32
	inst    ServiceInstance[T]
	ok      bool // false: the data is not an instance
}

// NewServiceCache returns a cache of the instances of the service name. It
// makes no network call; a bad name matches ErrInvalidArgument.
func (d *ServiceDiscovery[T]) NewServiceCache(name string) (*ServiceCache[T], error) {
	if err := validName("service name", name); err != nil {
		return nil, err
	}
	dir := framework.JoinPath(d.base, name)
	pcc, err := cache.NewPathChildrenCache(d.c, dir, cache.WithLogger(d.c.Logger()))
	if err != nil {
		return nil, fmt.Errorf("discovery: cache of %s: %w", dir, err)
	}
	return &ServiceCache[T]{c: d.c, dir: dir, pcc: pcc, memo: map[string]decoded[T]{}, listeners: map[int]CacheListener{}}, nil
}

// Start loads the instances and follows them until Close. It returns once
// the load is complete, or with ctx's error (the cache can then be started
// again); a second Start is ErrAlreadyStarted.
func (s *ServiceCache[T]) Start(ctx context.Context) error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return ErrClosed
	case s.started:
		s.mu.Unlock()
		return ErrAlreadyStarted
	}
	s.mu.Unlock()
	if err := s.pcc.Start(ctx); err != nil {
		switch {
		case errors.Is(err, cache.ErrAlreadyStarted):
			return ErrAlreadyStarted
		case errors.Is(err, cache.ErrClosed):
			return ErrClosed
		}
		return fmt.Errorf("discovery: start the cache of %s: %w", s.dir, err)
	}
	s.mu.Lock()
	s.started = true
	s.mu.Unlock()
	s.wg.Add(1)
	go s.follow()
	return nil
}

// Listen adds l; stop removes it (l is not called once stop returned,
// unless a call was under way).
func (s *ServiceCache[T]) Listen(l CacheListener) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextID
	s.nextID++
	s.listeners[id] = l
	return func() { s.mu.Lock(); delete(s.listeners, id); s.mu.Unlock() }
}

// Instances returns the instances the cache holds, sorted by node name. It
// never returns an instance whose node the cache knows is gone: it reads the
// cache's own state, not the events. Nodes whose data is not an instance are
// left out (and logged once per version).
func (s *ServiceCache[T]) Instances() []ServiceInstance[T] {
	nodes := s.pcc.Snapshot()
	out := make([]ServiceInstance[T], 0, len(nodes))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range nodes {
		if d := s.decode(n); d.ok {
			out = append(out, d.inst)
		}
	}
	if len(s.memo) > len(nodes) {
		// A node removed while this call decoded it: the cache no longer
		// holds it, so its memo goes.
		held := make(map[string]bool, len(nodes))
		for _, n := range nodes {
			held[n.Path] = true
		}
		for p := range s.memo {
			if !held[p] {
				delete(s.memo, p)
			}
		}
	}
	return out
}

// decode returns the node's instance, decoding it unless the memo has this
// version. Called with mu held.
func (s *ServiceCache[T]) decode(n cache.Node) decoded[T] {
	if d, ok := s.memo[n.Path]; ok && d.czxid == n.Stat.Czxid && d.version == n.Stat.Version {
		return d
	}
	d := decoded[T]{czxid: n.Stat.Czxid, version: n.Stat.Version}
	if err := d.inst.UnmarshalJSON(n.Data); err != nil {
		s.c.Logger().Warn("discovery: not an instance", zap.String("path", n.Path), zap.Error(err))
		s.c.ReportError(fmt.Errorf("discovery: %q is not an instance: %w", n.Path, err))
	} else {
		d.ok = true
	}
	s.memo[n.Path] = d
	return d
}

// follow applies the engine's events to the memo and calls the listeners.
func (s *ServiceCache[T]) follow() {
	defer s.wg.Done()
	for ev := range s.pcc.Events() {
		s.mu.Lock()
		changed, state := false, framework.ConnectionState(0)
		switch ev.Type {
		case cache.NodeAdded, cache.NodeUpdated:
			s.decode(ev.Node)
			changed = s.loaded
		case cache.NodeRemoved:
			delete(s.memo, ev.Node.Path)
			changed = s.loaded
		case cache.Initialized:
			s.loaded = true
		case cache.ConnectionSuspended:
			state = framework.Suspended
		case cache.ConnectionReconnected:
			state = framework.Reconnected
		case cache.ConnectionLost:
			state = framework.Lost
		}
		ls := make([]CacheListener, 0, len(s.listeners))
		for _, l := range s.listeners {
			ls = append(ls, l)
		}
		s.mu.Unlock()
		for _, l := range ls {
			if changed && l.CacheChanged != nil {
				l.CacheChanged()
			}
			if state != 0 && l.StateChanged != nil {
				l.StateChanged(state)
			}
		}
	}
}

// Close stops following the instances; its goroutines have ended when it
// returns. A second Close returns nil and does nothing.
func (s *ServiceCache[T]) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	err := s.pcc.Close()
	s.wg.Wait()
	if err != nil && !errors.Is(err, cache.ErrClosed) {
		return fmt.Errorf("discovery: close the cache of %s: %w", s.dir, err)
	}
	return nil
}
