package discovery

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/listen"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
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
	c         *framework.Client
	dir       string
	pcc       *cache.PathChildrenCache
	life      lifecycle.Lifecycle
	listeners listen.Set[cacheEvent]
	wg        sync.WaitGroup

	mu     sync.Mutex
	memo   map[string]decoded[T] // node path -> its instance, as last decoded
	loaded bool                  // the initial load is complete: CacheChanged is called
}

// cacheEvent is what one of the engine's events tells the listeners.
type cacheEvent struct {
	changed bool                      // an instance was added, updated or removed
	state   framework.ConnectionState // 0: none
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
	return &ServiceCache[T]{c: d.c, dir: dir, pcc: pcc, life: lifecycle.New(&lifeErrors), memo: map[string]decoded[T]{}}, nil
}

// Start loads the instances and follows them until Close. It returns once
// the load is complete, or with ctx's error (the cache can then be started
// again); a second Start is ErrAlreadyStarted.
func (s *ServiceCache[T]) Start(ctx context.Context) error {
	if err := s.life.Start(""); err != nil {
		return err
	}
	if err := s.pcc.Start(ctx); err != nil {
		s.life.Unstart() // a failed Start may be tried again
		if errors.Is(err, cache.ErrClosed) {
			return ErrClosed // Close came during the load
		}
		return fmt.Errorf("discovery: start the cache of %s: %w", s.dir, err)
	}
	s.wg.Add(1)
	go s.follow()
	return nil
}

// Listen adds l, called after the listeners added before it, and returns
// its stop: idempotent, and once it returned l is not called again (a call
// under way is not waited for).
func (s *ServiceCache[T]) Listen(l CacheListener) (stop func()) {
	return s.listeners.Add(func(e cacheEvent) {
		if e.changed && l.CacheChanged != nil {
			l.CacheChanged()
		}
		if e.state != 0 && l.StateChanged != nil {
			l.StateChanged(e.state)
		}
	})
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
		if e := s.apply(ev); e != (cacheEvent{}) {
			s.listeners.Deliver(e)
		}
	}
}

// apply takes ev into the memo and returns what it tells the listeners.
func (s *ServiceCache[T]) apply(ev cache.Event) cacheEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.Type {
	case cache.NodeAdded, cache.NodeUpdated:
		s.decode(ev.Node)
		return cacheEvent{changed: s.loaded}
	case cache.NodeRemoved:
		delete(s.memo, ev.Node.Path)
		return cacheEvent{changed: s.loaded}
	case cache.Initialized:
		s.loaded = true
	case cache.ConnectionSuspended:
		return cacheEvent{state: framework.Suspended}
	case cache.ConnectionReconnected:
		return cacheEvent{state: framework.Reconnected}
	case cache.ConnectionLost:
		return cacheEvent{state: framework.Lost}
	}
	return cacheEvent{}
}

// Close stops following the instances; its goroutines have ended when it
// returns. A second Close returns nil and does nothing.
func (s *ServiceCache[T]) Close() error {
	if first, _ := s.life.Close(); !first {
		return nil
	}
	err := s.pcc.Close()
	s.wg.Wait()
	if err != nil && !errors.Is(err, cache.ErrClosed) {
		return fmt.Errorf("discovery: close the cache of %s: %w", s.dir, err)
	}
	return nil
}
