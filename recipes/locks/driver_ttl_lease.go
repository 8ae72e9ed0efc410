package locks

import (
	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// lease keeps one node of a PersistentTTLLockInternalsDriver alive, from its
// creation (or adoption) until its release. A lease the driver gave up stays
// registered, its Lost closed, until its release: that release must know the
// version the lease last wrote, and the id's claim stands until then.
type lease struct {
	client   *framework.Client
	claim    *claim // nil without a fixed id
	lockPath string
	nodePath string

	ctx    context.Context // cancelled on release
	cancel context.CancelFunc
	done   chan struct{} // closed when the refresh loop has ended
	lost   chan struct{} // closed when the node was given up without a release

	// Written by the refresh loop only; read by the release once done is closed.
	data    []byte
	version int32 // of the node's data as the lease last wrote it
	// unsure: a write of the lease may have landed unseen (a refresh
	// failed without the server's answer), so the node may be at a later
	// version than version.
	unsure bool
}

// keep registers l and starts refreshing its node; renewed is a time no later
// than the lease's last write.
func (d *PersistentTTLLockInternalsDriver) keep(l *lease, renewed time.Time) {
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.done, l.lost = make(chan struct{}), make(chan struct{})
	d.mu.Lock()
	d.leases[l.nodePath] = l
	d.mu.Unlock()
	go d.refreshLoop(l, renewed)
}

// refreshLoop rewrites the node every TTL/3 until the lease is released or the
// node has to be given up. A failed refresh is retried sooner.
func (d *PersistentTTLLockInternalsDriver) refreshLoop(l *lease, renewed time.Time) {
	defer close(l.done)
	defer l.cancel()
	interval := max(d.ttl/3, time.Millisecond)
	retryAfter := max(interval/8, time.Millisecond)
	// The server may delete the node a TTL after the last refresh it applied;
	// the lease ends a third of the TTL before that, measured from when that
	// refresh was sent.
	expires := d.ttl - interval
	t := time.NewTimer(interval - time.Since(renewed))
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-l.client.Done():
			d.giveUp(l, "client closed")
			return
		case <-t.C:
		}
		// A refresh may take until the next one is due, but never past the
		// end of the lease.
		sent := time.Now()
		deadline := sent.Add(interval)
		if end := renewed.Add(expires); end.Before(deadline) {
			deadline = end
		}
		ctx, cancel := context.WithDeadline(l.ctx, deadline)
		err := l.refresh(ctx)
		cancel()
		switch {
		case l.ctx.Err() != nil:
			return
		case err == nil:
			renewed = sent
			t.Reset(interval)
		case errors.Is(err, zk.ErrNoNode):
			d.giveUp(l, "lock node deleted")
			return
		case errors.Is(err, framework.ErrClosed):
			d.giveUp(l, "client closed")
			return
		case !time.Now().Before(renewed.Add(expires)):
			d.giveUp(l, "lock node not refreshed within two thirds of its TTL")
			return
		default:
			l.client.Logger().Debug("refreshing a TTL lock node failed; retrying",
				zap.String("path", l.nodePath), zap.Error(err))
			t.Reset(retryAfter)
		}
	}
}

// refresh rewrites the node's data if it is still at the lease's version,
// touching its modification time. When someone else has written the node
// since, their data is what gets rewritten.
// Until a refresh succeeds, a write of it may have landed unseen (unsure).
func (l *lease) refresh(ctx context.Context) error {
	l.unsure = true
	stat, err := l.client.SetData(ctx, l.nodePath, l.data, l.version)
	if err == nil {
		l.version, l.unsure = stat.Version, false
		return nil
	}
	if !errors.Is(err, zk.ErrBadVersion) {
		return err
	}
	cur, stat, err := l.client.GetData(ctx, l.nodePath)
	if err != nil {
		return err
	}
	if stat, err = l.client.SetData(ctx, l.nodePath, cur, stat.Version); err != nil {
		return err
	}
	l.data, l.version, l.unsure = cur, stat.Version, false
	return nil
}

// giveUp ends a lease that was not released: its contender learns through
// NodeLost. The lease stays registered, and its claim stands, until its
// release, unless its client is closed: then nothing of it can act any more.
func (d *PersistentTTLLockInternalsDriver) giveUp(l *lease, why string) {
	l.client.Logger().Warn("no longer keeping a TTL lock node", zap.String("path", l.nodePath), zap.String("reason", why))
	if isClosed(l.client.Done()) {
		d.forget(l)
	}
	close(l.lost)
}

// forget unregisters l and ends its claim, unless others have replaced them.
func (d *PersistentTTLLockInternalsDriver) forget(l *lease) {
	d.mu.Lock()
	if d.leases[l.nodePath] == l {
		delete(d.leases, l.nodePath)
	}
	d.mu.Unlock()
	d.unclaim(l.lockPath, l.claim)
}

// ReleasesTheLock ends the lease of c's node at nodePath: it stops keeping the
// node alive and deletes it, but only at the version the lease last wrote,
// or, for a lease it stops itself, at the version it reads back (guaranteed:
// what ctx does not allow goes on in the background, across reconnects;
// should that never succeed, the TTL still removes the node). A node that
// this driver does not keep for c (adopted since by another client, say) is
// left alone.
func (d *PersistentTTLLockInternalsDriver) ReleasesTheLock(ctx context.Context, c *framework.Client, nodePath string) error {
	d.mu.Lock()
	l := d.leases[nodePath]
	if l == nil || l.client != c {
		d.mu.Unlock()
		return nil
	}
	delete(d.leases, nodePath)
	d.mu.Unlock()
	l.cancel()
	<-l.done
	givenUp := isClosed(l.lost)
	err := l.deleteNode(ctx, func() bool { return !givenUp }, true)
	if err != nil && l.unsure && (retry.IsRetryable(err) || ctx.Err() != nil) {
		// The version is in doubt, so no guaranteed delete of it was
		// queued: the release goes on in the background, and its claim
		// stands until it is done, so that no contender of our id adopts
		// the node meanwhile.
		d.releaseLater(l, givenUp)
		return err
	}
	// The claim stands until the delete is done or queued, so that no
	// contender of our id adopts the node in between.
	d.unclaim(l.lockPath, l.claim)
	return err
}

// deleteNode deletes the lease's node while it has the version the lease last
// wrote. When it finds a later version (a refresh of its own cut short whose
// write still landed, or a revocation request) it deletes the version it
// reads back if readBack allows: a lease stopped by its release does, one the
// driver gave up does not (a write since then means the node was adopted).
// A delete at a version the lease knows to be the node's is guaranteed when
// guarantee is set: the client retries it in the background after a
// failure; one at a version in doubt (unsure) is not, since its retry would
// have to read the version back.
func (l *lease) deleteNode(ctx context.Context, readBack func() bool, guarantee bool) error {
	const attempts = 3
	version, known := l.version, !l.unsure
	for range attempts {
		opts := []framework.DeleteOption{framework.WithVersion(version), framework.Quietly()}
		if guarantee && known {
			opts = append(opts, framework.Guaranteed())
		}
		err := l.client.Delete(ctx, l.nodePath, opts...)
		if !errors.Is(err, zk.ErrBadVersion) {
			return err
		}
		_, stat, err := l.client.GetData(ctx, l.nodePath)
		switch {
		case errors.Is(err, zk.ErrNoNode):
			return nil
		case err != nil:
			return err
		case !readBack():
			l.client.Logger().Info("not deleting a TTL lock node written since its lease ended", zap.String("path", l.nodePath))
			return nil
		}
		version, known = stat.Version, true
		l.version, l.unsure = version, false
	}
	return errorf("delete %s: written again on each of %d attempts", l.nodePath, attempts)
}

// releaseLater goes on with the release of l in the background, with a
// context of its own, until the node is gone or the client closes, and then
// ends the lease's claim. It reads the version back as the foreground does,
// unless the lease was given up.
func (d *PersistentTTLLockInternalsDriver) releaseLater(l *lease, givenUp bool) {
	wake := make(chan struct{}, 1)
	stop := l.client.Listen(func(framework.ConnectionState) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	go func() {
		defer stop()
		defer d.unclaim(l.lockPath, l.claim)
		bo := backoff.NewExponentialBackOff()
		bo.MaxElapsedTime = 0
		for {
			err := l.deleteNode(context.Background(), func() bool { return !givenUp }, false)
			switch {
			case err == nil:
				return
			case errors.Is(err, framework.ErrClosed) || !retry.IsRetryable(err):
				l.client.Logger().Warn("giving up releasing a TTL lock node; its TTL will remove it", zap.String("path", l.nodePath), zap.Error(err))
				return
			}
			sleep := time.NewTimer(bo.NextBackOff())
			select {
			case <-l.client.Done():
				sleep.Stop()
				return
			case <-wake:
			case <-sleep.C:
			}
			sleep.Stop()
		}
	}()
}

// NodeLost returns a channel that is closed when the driver stops keeping the
// node at nodePath alive without a release; see NodeKeeper.
func (d *PersistentTTLLockInternalsDriver) NodeLost(nodePath string) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if l := d.leases[nodePath]; l != nil {
		return l.lost
	}
	return closedChan
}
