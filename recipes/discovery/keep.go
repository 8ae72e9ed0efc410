package discovery

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// poke asks the keeper to check the registrations; it never blocks.
func (d *ServiceDiscovery[T]) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// keep checks the registrations whenever poked (after every connect and
// reconnect) and, while a check fails, every cfg.retryEvery, until Close.
func (d *ServiceDiscovery[T]) keep() {
	defer d.wg.Done()
	var retry <-chan time.Time
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-d.wake:
		case <-retry:
		}
		retry = nil
		if err := d.check(d.ctx); err != nil && d.ctx.Err() == nil {
			d.c.Logger().Warn("discovery: could not register again; will retry", zap.Error(err))
			d.c.ReportError(fmt.Errorf("discovery: registering again: %w", err))
			retry = time.After(d.cfg.retryEvery)
		}
	}
}

// check makes again each registration whose node is gone or belongs to a
// session other than the client's current one. A registration whose node is
// this session's is left alone: unlike Curator, which deletes and re-creates
// every registration on every reconnect, a reconnect within the session
// changes nothing and fires no watcher.
func (d *ServiceDiscovery[T]) check(ctx context.Context) error {
	if err := d.take(ctx); err != nil {
		return err
	}
	defer d.give()
	d.mu.Lock()
	regs := make([]*registration[T], 0, len(d.regs))
	for _, r := range d.regs {
		regs = append(regs, r)
	}
	d.mu.Unlock()
	for _, r := range regs {
		stat, err := d.c.Exists(ctx, r.path)
		if err != nil {
			return fmt.Errorf("discovery: check %s: %w", r.path, err)
		}
		var owner framework.Session
		if stat != nil {
			owner = d.c.SessionOf(stat.EphemeralOwner)
		}
		if stat != nil && d.ours(r.inst.ServiceType, owner) {
			d.mu.Lock()
			r.made, r.owner = true, owner
			d.mu.Unlock()
			if base := d.pathFor(r.inst.Name, r.inst.ID); r.path != base {
				// A sweep cut short by the connection loss is done now.
				if err := d.sweepSequential(ctx, base, r.path); err != nil {
					return err
				}
			}
			continue
		}
		if stat != nil && r.path != d.pathFor(r.inst.Name, r.inst.ID) {
			// A sequential node of an older session: create makes a new
			// name, so the old one is deleted here.
			if err := d.deleteNode(ctx, r.path); err != nil {
				return err
			}
		}
		if err := d.create(ctx, r); err != nil {
			return err
		}
		d.c.Logger().Info("discovery: registered again after a session change", zap.String("path", r.path))
	}
	return nil
}
