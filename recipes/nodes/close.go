package nodes

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// deleteNode deletes the node at Close: a persistent one wherever it stood,
// an ephemeral one only while it is this client's. When no create was seen
// to succeed, one may still have landed (its reply lost, or still on its way
// when Close stopped the keeper): a non-sequential node is then looked for at
// the base path, where an ephemeral one of the current session is ours, as
// no other session's create could have made it. (A protected create that
// failed is cleaned up by the framework.)
func (p *PersistentNode) deleteNode(ctx context.Context) error {
	p.mu.Lock()
	path, owner, foreign, unverified := p.path, p.owner, p.foreign, p.unverified
	p.mu.Unlock()
	if path == "" && p.id == "" && !p.mode.IsSequential() {
		path, owner = p.base, p.c.Session()
	}
	if path == "" {
		return nil
	}
	if !p.mode.IsEphemeral() || foreign {
		opts := append([]framework.DeleteOption{framework.Guaranteed(), framework.Quietly()}, p.closeOpts...)
		if err := p.c.Delete(ctx, path, opts...); err != nil {
			return fmt.Errorf("nodes: close %s: %w", path, err)
		}
		return nil
	}
	err := p.deleteIfOwned(ctx, path, owner, unverified)
	if err != nil && (owner.ID() != 0 || unverified) && transient(err) {
		// The session may outlive the partition that cut Close short, and
		// its node with it: the delete goes on, as a guaranteed one does.
		go p.deleteLater(path, owner, unverified)
	}
	if err != nil {
		return fmt.Errorf("nodes: close %s: %w", path, err)
	}
	return nil
}

// deleteIfOwned deletes the ephemeral node at path if owner (a session of
// this client's, of id 0 if none) or the current session owns it, or, when our
// create made it but its owner is not known (unverified), any session.
func (p *PersistentNode) deleteIfOwned(ctx context.Context, path string, owner framework.Session, unverified bool) error {
	for {
		stat, err := p.c.Exists(ctx, path)
		if err != nil || stat == nil || stat.EphemeralOwner == 0 {
			return err
		}
		if !madeHere(stat.EphemeralOwner, owner, unverified) && !p.c.SessionOf(stat.EphemeralOwner).IsCurrent() {
			return nil
		}
		err = p.c.Delete(ctx, path, framework.WithVersion(stat.Version), framework.Quietly())
		if !errors.Is(err, zk.ErrBadVersion) {
			return err
		}
		// Written meanwhile: look again.
	}
}

// deleteLater goes on deleting the ephemeral node after a Close that its
// context or a partition cut short, until the node is gone or not ours, or
// the client closes.
func (p *PersistentNode) deleteLater(path string, owner framework.Session, unverified bool) {
	delay := minRetry
	for {
		ctx, cancel := context.WithTimeout(context.Background(), p.c.SessionTimeout())
		err := p.deleteIfOwned(ctx, path, owner, unverified)
		cancel()
		switch {
		case err == nil || errors.Is(err, framework.ErrClosed):
			return
		case !transient(err):
			p.c.Logger().Warn("nodes: deleting a closed node failed", zap.String("path", path), zap.Error(err))
			p.c.ReportError(fmt.Errorf("nodes: deleting closed node %q failed: %w", path, err))
			return
		}
		select {
		case <-p.c.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, maxRetry)
	}
}

// transient reports a failure that a later attempt may not meet.
func transient(err error) bool {
	return retry.IsRetryable(err) || errors.Is(err, framework.ErrNotConnected) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
