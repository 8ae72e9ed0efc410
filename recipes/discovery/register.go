package discovery

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// registration is an instance this ServiceDiscovery registered: what it
// wrote, the node that holds it, whether that node was made, and the session
// that created the node (of id 0 for a persistent node).
type registration[T any] struct {
	inst  ServiceInstance[T]
	data  []byte
	path  string
	made  bool
	owner framework.Session
}

// RegisterService registers inst (or registers it again, replacing what was
// registered under its id, whatever its name and service type: one node
// stands for the id afterwards): it creates {basePath}/{name}/{id} with
// parents as containers, in the node mode of its service type (an empty
// type registers as Dynamic). A node that exists already is deleted and
// created again, so that watchers fire, as Curator does. The registration is kept until
// UnregisterService or Close: made again after a session loss, and made in
// the background when this create fails. Like every change to
// registrations, it needs Start first (ErrNotStarted).
func (d *ServiceDiscovery[T]) RegisterService(ctx context.Context, inst ServiceInstance[T]) error {
	if err := inst.validate(); err != nil {
		return err
	}
	if inst.ServiceType == "" {
		inst.ServiceType = Dynamic
	}
	data, err := inst.MarshalJSON()
	if err != nil {
		return err
	}
	if err := d.begin(ctx); err != nil {
		return err
	}
	defer d.give()
	d.mu.Lock()
	old := d.regs[inst.ID]
	var stale string
	if old != nil {
		stale = d.outlives(old, d.pathFor(inst.Name, inst.ID), inst.ServiceType)
	}
	d.mu.Unlock()
	if stale != "" {
		// The create below would not meet the old node (another name, a
		// sequential node on either side): it goes first, so that one node
		// stands for the id.
		if err := d.deleteNode(ctx, stale); err != nil {
			return err
		}
	}
	r := &registration[T]{inst: inst, data: data, path: d.pathFor(inst.Name, inst.ID)}
	d.mu.Lock()
	d.regs[inst.ID] = r
	d.mu.Unlock()
	// Kept even when the create fails: the keeper makes it (every
	// retryEvery until it succeeds), with no need for a reconnect.
	err = d.create(ctx, r)
	if err != nil {
		d.poke()
	}
	if d.isClosed() {
		// Close ran meanwhile, without the turn, and may have missed this
		// node: it goes now.
		d.mu.Lock()
		delete(d.regs, inst.ID)
		path := r.path
		d.mu.Unlock()
		return errors.Join(fmt.Errorf("discovery: register %s: %w", path, ErrClosed), d.deleteNode(ctx, path))
	}
	return err
}

// UpdateService writes inst over the node of the registered instance with
// its id (a plain set of the data, as Curator's updateService), and keeps it
// for the registrations made again later, even when the write fails (it may
// have landed). An instance not registered here is ErrNotRegistered.
func (d *ServiceDiscovery[T]) UpdateService(ctx context.Context, inst ServiceInstance[T]) error {
	if err := inst.validate(); err != nil {
		return err
	}
	if err := d.begin(ctx); err != nil {
		return err
	}
	defer d.give()
	d.mu.Lock()
	r := d.regs[inst.ID]
	d.mu.Unlock()
	if r == nil || r.inst.Name != inst.Name {
		return fmt.Errorf("%w: %s", ErrNotRegistered, inst.key())
	}
	if inst.ServiceType == "" {
		inst.ServiceType = r.inst.ServiceType
	}
	if inst.ServiceType != r.inst.ServiceType {
		return fmt.Errorf("%w: %s: service type %s of a %s registration (register it again)", ErrInvalidArgument, inst.key(), inst.ServiceType, r.inst.ServiceType)
	}
	data, err := inst.MarshalJSON()
	if err != nil {
		return err
	}
	// Kept before the write, as Curator does: a write that fails may have
	// landed all the same, and a registration made again must never carry
	// older data than the node showed.
	d.mu.Lock()
	r.inst, r.data = inst, data
	d.mu.Unlock()
	if _, err := d.c.SetData(ctx, r.path, data, -1); err != nil {
		return fmt.Errorf("discovery: update %s: %w", r.path, err)
	}
	return nil
}

// UnregisterService removes the registration of the instance with inst's id
// and deletes its node (a guaranteed delete: when ctx ends or the connection
// fails first, it goes on in the background and the error is reported).
// An instance not registered here is ErrNotRegistered.
func (d *ServiceDiscovery[T]) UnregisterService(ctx context.Context, inst ServiceInstance[T]) error {
	if err := d.begin(ctx); err != nil {
		return err
	}
	defer d.give()
	d.mu.Lock()
	r := d.regs[inst.ID]
	delete(d.regs, inst.ID)
	d.mu.Unlock()
	if r == nil {
		return fmt.Errorf("%w: %s", ErrNotRegistered, inst.key())
	}
	return d.deleteNode(ctx, r.path)
}

// IsRegistered reports whether the instance id is registered here and its
// node is this client's: a node of a session the client gave up or lost is
// never reported as a registration.
func (d *ServiceDiscovery[T]) IsRegistered(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.regs[id]
	if r == nil {
		return false
	}
	return r.made && d.ours(r.inst.ServiceType, r.owner)
}

// ours reports whether a registration's node of type t owned by owner is
// this client's: a persistent node always, an ephemeral one only in the
// client's current session.
func (d *ServiceDiscovery[T]) ours(t ServiceType, owner framework.Session) bool {
	return !t.ephemeral() || owner.IsCurrent()
}

// outlives returns the node of r that creating a node of type t at base
// would leave standing ("" when none): the create deletes and replaces only
// a node at base, and a sequential create meets no node at all. A
// sequential registration never made (its path still its base) has no
// node. Called with mu held.
func (d *ServiceDiscovery[T]) outlives(r *registration[T], base string, t ServiceType) string {
	if r.inst.ServiceType.mode().IsSequential() && r.path == d.pathFor(r.inst.Name, r.inst.ID) {
		return ""
	}
	if r.path == base && !t.mode().IsSequential() {
		return ""
	}
	return r.path
}

// create makes r's node: when it exists, it is deleted and created again
// (Curator tries twice; a third writer racing us gets a third try).
func (d *ServiceDiscovery[T]) create(ctx context.Context, r *registration[T]) error {
	base := d.pathFor(r.inst.Name, r.inst.ID)
	d.mu.Lock()
	r.made = false
	d.mu.Unlock()
	mode := r.inst.ServiceType.mode()
	for try := 0; ; try++ {
		path, owner, err := owned.Create(ctx, d.c, func(ctx context.Context) (string, error) {
			return d.c.Create(ctx, base, r.data, framework.WithMode(mode), framework.CreatingParentContainersIfNeeded())
		})
		if err == nil {
			d.mu.Lock()
			r.path, r.made, r.owner = path, true, owner
			d.mu.Unlock()
			d.c.Logger().Debug("discovery: registered", zap.String("path", path))
			if mode.IsSequential() {
				return d.sweepSequential(ctx, base, path)
			}
			return nil
		}
		if !errors.Is(err, zk.ErrNodeExists) || try == 2 {
			return fmt.Errorf("discovery: register %s: %w", base, err)
		}
		if err := d.c.Delete(ctx, base, framework.Quietly()); err != nil {
			return fmt.Errorf("discovery: register %s: delete the node there: %w", base, err)
		}
	}
}

// deleteNode deletes an instance node, guaranteed.
func (d *ServiceDiscovery[T]) deleteNode(ctx context.Context, path string) error {
	if err := d.c.Delete(ctx, path, framework.Guaranteed(), framework.Quietly()); err != nil {
		return fmt.Errorf("discovery: unregister %s: %w", path, err)
	}
	return nil
}

// begin takes the turn to change registrations, on a started, open
// ServiceDiscovery.
func (d *ServiceDiscovery[T]) begin(ctx context.Context) error {
	if err := d.life.Check(""); err != nil {
		return err
	}
	return d.take(ctx)
}

func (d *ServiceDiscovery[T]) take(ctx context.Context) error {
	select {
	case d.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for another registration change: %w", context.Cause(ctx))
	}
}

func (d *ServiceDiscovery[T]) give() { <-d.turn }
