package discovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// ServiceDiscovery registers this process's service instances under a base
// path and queries everyone's, as Curator's ServiceDiscovery: instance nodes
// are {basePath}/{name}/{id} holding Curator's JSON.
type ServiceDiscovery[T any] struct {
	c    *framework.Client
	base string
	cfg  config
	life lifecycle.Lifecycle

	// turn serializes the changes to registrations (a one-slot semaphore
	// that a ctx can give up waiting for).
	turn chan struct{}

	wake   chan struct{} // one slot: the registrations need checking
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// mu guards the fields below and the registrations' fields; Start
	// holds it throughout, so that Close finds what Start began.
	mu         sync.Mutex
	regs       map[string]*registration[T]
	stopListen func()
}

// NewServiceDiscovery returns a ServiceDiscovery of the services under
// basePath (Curator's default is "/services"). It makes no network call; a
// nil client, an invalid or root path or a bad option is an error naming it
// that matches ErrInvalidArgument.
func NewServiceDiscovery[T any](c *framework.Client, basePath string, opts ...Option) (*ServiceDiscovery[T], error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil client", ErrInvalidArgument)
	}
	if err := framework.ValidatePath(basePath); err != nil {
		return nil, fmt.Errorf("%w: base path %q: %w", ErrInvalidArgument, basePath, err)
	}
	if basePath == "/" {
		return nil, fmt.Errorf("%w: base path %q is the root", ErrInvalidArgument, basePath)
	}
	cfg, err := newConfig(basePath, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &ServiceDiscovery[T]{
		c: c, base: basePath, cfg: cfg, life: lifecycle.New(&lifeErrors),
		turn: make(chan struct{}, 1), regs: make(map[string]*registration[T]),
		wake: make(chan struct{}, 1), ctx: ctx, cancel: cancel,
	}, nil
}

// BasePath is the path the services live under.
func (d *ServiceDiscovery[T]) BasePath() string { return d.base }

// Start begins keeping this client's registrations: after every reconnect
// each is checked and made again when its node is gone or belongs to a
// session the client no longer has. It returns at once.
func (d *ServiceDiscovery[T]) Start() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.life.Start(""); err != nil {
		return err
	}
	select {
	case <-d.c.Done():
		d.life.Unstart()
		return fmt.Errorf("discovery: start: %w", framework.ErrClosed)
	default:
	}
	d.stopListen = d.c.Listen(func(s framework.ConnectionState) {
		if s == framework.Reconnected || s == framework.Connected {
			d.poke()
		}
	})
	d.wg.Add(1)
	go d.keep()
	return nil
}

// Close stops keeping registrations and unregisters every instance this
// ServiceDiscovery registered (a guaranteed delete, which goes on in the
// background when ctx ends first, as Curator's close). When ctx ends while
// another change holds the turn, Close deletes without it, and a
// registration that finishes after Close deletes its own node. A second
// Close returns nil and does nothing. Caches and providers have their own
// Close.
func (d *ServiceDiscovery[T]) Close(ctx context.Context) error {
	if first, _ := d.life.Close(); !first {
		return nil
	}
	d.mu.Lock() // waits for a Start under way
	stop := d.stopListen
	d.mu.Unlock()
	if stop != nil {
		stop()
	}
	d.cancel()
	d.wg.Wait()
	var errs []error
	if err := d.take(ctx); err != nil {
		// A change under way (in a partition, say) holds the turn: delete
		// without it. A RegisterService finishing later sees closed and
		// deletes its own node.
		errs = append(errs, fmt.Errorf("discovery: close: %w", err))
	} else {
		defer d.give()
	}
	d.mu.Lock()
	regs := d.regs
	d.regs = map[string]*registration[T]{}
	d.mu.Unlock()
	for _, r := range regs {
		d.mu.Lock()
		path := r.path
		d.mu.Unlock()
		if err := d.deleteNode(ctx, path); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// QueryForNames returns the names of the services under the base path,
// sorted; none when the base path does not exist.
func (d *ServiceDiscovery[T]) QueryForNames(ctx context.Context) ([]string, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	names, _, err := d.c.Children(ctx, d.base)
	if errors.Is(err, zk.ErrNoNode) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("discovery: names under %s: %w", d.base, err)
	}
	slices.Sort(names)
	return names, nil
}

// QueryForInstances returns the instances of the service name, sorted by
// node name; none when the service has no node. A node whose data is not an
// instance is an error matching ErrBadInstance, as in Curator.
func (d *ServiceDiscovery[T]) QueryForInstances(ctx context.Context, name string) ([]ServiceInstance[T], error) {
	if err := validName("service name", name); err != nil {
		return nil, err
	}
	if err := d.usable(); err != nil {
		return nil, err
	}
	dir := framework.JoinPath(d.base, name)
	ids, _, err := d.c.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return []ServiceInstance[T]{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("discovery: instances of %s: %w", dir, err)
	}
	slices.Sort(ids)
	out := make([]ServiceInstance[T], 0, len(ids))
	for _, id := range ids {
		inst, ok, err := d.read(ctx, framework.JoinPath(dir, id))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, inst)
		}
	}
	return out, nil
}

// QueryForInstance returns the instance id of the service name; false when
// it has no node.
func (d *ServiceDiscovery[T]) QueryForInstance(ctx context.Context, name, id string) (ServiceInstance[T], bool, error) {
	if err := validName("service name", name); err != nil {
		return ServiceInstance[T]{}, false, err
	}
	if err := validName("instance id", id); err != nil {
		return ServiceInstance[T]{}, false, err
	}
	if err := d.usable(); err != nil {
		return ServiceInstance[T]{}, false, err
	}
	return d.read(ctx, d.pathFor(name, id))
}

// read reads and decodes one instance node; false when it is gone.
func (d *ServiceDiscovery[T]) read(ctx context.Context, path string) (ServiceInstance[T], bool, error) {
	var inst ServiceInstance[T]
	data, _, err := d.c.GetData(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return inst, false, nil
	}
	if err != nil {
		return inst, false, fmt.Errorf("discovery: read %s: %w", path, err)
	}
	if err := inst.UnmarshalJSON(data); err != nil {
		return inst, false, fmt.Errorf("discovery: %s: %w", path, err)
	}
	return inst, true, nil
}

func (d *ServiceDiscovery[T]) pathFor(name, id string) string {
	return framework.JoinPath(framework.JoinPath(d.base, name), id)
}

// isClosed reports whether Close has begun.
func (d *ServiceDiscovery[T]) isClosed() bool { return d.life.State() == lifecycle.Closed }

// usable reports ErrClosed after Close; queries need no Start.
func (d *ServiceDiscovery[T]) usable() error {
	if d.isClosed() {
		return ErrClosed
	}
	return nil
}

// validName checks that v is one node name.
func validName(what, v string) error {
	if v == "" || v == "." || v == ".." || strings.ContainsAny(v, "/\x00") {
		return fmt.Errorf("%w: %s %q is not a node name", ErrInvalidArgument, what, v)
	}
	return nil
}
