package discovery

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/internal/apply"
)

// ProviderOption configures a ServiceProvider.
type ProviderOption[T any] func(*providerConfig[T])

type providerConfig[T any] struct {
	strategy      ProviderStrategy[T]
	filters       []func(ServiceInstance[T]) bool
	downTimeout   time.Duration
	downThreshold int
}

// WithStrategy picks instances with s (RoundRobin by default).
func WithStrategy[T any](s ProviderStrategy[T]) ProviderOption[T] {
	return func(c *providerConfig[T]) { c.strategy = s }
}

// WithFilter adds an instance filter: an instance is offered only when every
// filter returns true. The user's filters run first, then the down-instance
// policy, then the instance's enabled flag, as in Curator.
func WithFilter[T any](keep func(ServiceInstance[T]) bool) ProviderOption[T] {
	return func(c *providerConfig[T]) { c.filters = append(c.filters, keep) }
}

// WithDownInstancePolicy sets Curator's DownInstancePolicy: an instance
// noted with threshold errors (NoteError) is left out until timeout after
// its first noted error, and is back in from that moment. The default is
// Curator's, 30 s and 2.
func WithDownInstancePolicy[T any](timeout time.Duration, threshold int) ProviderOption[T] {
	return func(c *providerConfig[T]) { c.downTimeout, c.downThreshold = timeout, threshold }
}

// ServiceProvider picks an instance of a service for each call, as Curator's
// ServiceProvider: from a ServiceCache, through the filters, by a strategy.
type ServiceProvider[T any] struct {
	cache *ServiceCache[T]
	cfg   providerConfig[T]
	down  *downInstances
}

// NewServiceProvider returns a provider of the instances of the service
// name. It makes no network call; a bad name or option matches
// ErrInvalidArgument.
func (d *ServiceDiscovery[T]) NewServiceProvider(name string, opts ...ProviderOption[T]) (*ServiceProvider[T], error) {
	cfg := providerConfig[T]{strategy: RoundRobin[T](), downTimeout: DefaultDownTimeout, downThreshold: DefaultDownThreshold}
	if err := apply.Options(&cfg, opts, ErrInvalidArgument, fmt.Sprintf("the provider of %q", name)); err != nil {
		return nil, err
	}
	switch {
	case cfg.strategy == nil:
		return nil, fmt.Errorf("%w: nil provider strategy", ErrInvalidArgument)
	case cfg.downTimeout <= 0:
		return nil, fmt.Errorf("%w: down-instance timeout %v is not positive", ErrInvalidArgument, cfg.downTimeout)
	case cfg.downThreshold < 1:
		return nil, fmt.Errorf("%w: down-instance threshold %d is below 1", ErrInvalidArgument, cfg.downThreshold)
	}
	for n, f := range cfg.filters {
		if f == nil {
			return nil, fmt.Errorf("%w: instance filter %d is nil", ErrInvalidArgument, n)
		}
	}
	sc, err := d.NewServiceCache(name)
	if err != nil {
		return nil, err
	}
	return &ServiceProvider[T]{cache: sc, cfg: cfg, down: newDownInstances(cfg.downTimeout, cfg.downThreshold)}, nil
}

// Start loads the instances; see ServiceCache.Start.
func (p *ServiceProvider[T]) Start(ctx context.Context) error { return p.cache.Start(ctx) }

// Close stops following the instances; see ServiceCache.Close.
func (p *ServiceProvider[T]) Close() error { return p.cache.Close() }

// Instance picks an instance by the strategy among those the filters keep;
// false when there is none. It never returns an instance whose node the
// cache knows is gone.
func (p *ServiceProvider[T]) Instance() (ServiceInstance[T], bool) {
	return p.cfg.strategy.Instance(p.AllInstances())
}

// AllInstances returns the instances the filters keep, sorted by node name.
func (p *ServiceProvider[T]) AllInstances() []ServiceInstance[T] {
	all := p.cache.Instances()
	out := all[:0]
	for _, i := range all {
		if p.keep(i) {
			out = append(out, i)
		}
	}
	return out
}

func (p *ServiceProvider[T]) keep(i ServiceInstance[T]) bool {
	for _, f := range p.cfg.filters {
		if !f(i) {
			return false
		}
	}
	return p.down.up(i.key()) && i.IsEnabled()
}

// NoteError notes that inst failed: after the down-instance policy's
// threshold of errors it is left out until the policy's timeout.
func (p *ServiceProvider[T]) NoteError(inst ServiceInstance[T]) { p.down.note(inst.key()) }
