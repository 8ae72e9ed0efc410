package locks

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sync/atomic"

	"github.com/zkcurator/zkcurator/framework"
)

// Lease is one lease granted by an InterProcessSemaphoreV2: an ephemeral node
// under the semaphore's leases path. It lasts until Close, or until the
// session that created it ends. A Lease is safe for concurrent use.
type Lease struct {
	client *framework.Client
	path   string
	closed atomic.Bool
}

// Close returns the lease to the semaphore by deleting its node. The delete is
// guaranteed: if it fails with a connection problem, Close reports the
// failure and the client keeps deleting in the background. An already deleted
// node is not an error, and calls after the first do nothing.
func (l *Lease) Close(ctx context.Context) error {
	if !l.closed.CompareAndSwap(false, true) {
		return nil
	}
	if err := l.client.Delete(ctx, l.path, framework.Guaranteed(), framework.Quietly()); err != nil {
		return fmt.Errorf("locks: return lease %s: %w", l.path, err)
	}
	return nil
}

// NodeName returns the name of the lease's node, "_c_<uuid>-lease-<sequence>".
func (l *Lease) NodeName() string { return path.Base(l.path) }

// Path returns the full path of the lease's node (without the client's
// namespace).
func (l *Lease) Path() string { return l.path }

// closeAll returns every lease, even when ctx has ended, and reports the
// failures. The deletes are guaranteed, so a failed one goes on in the
// background.
func closeAll(ctx context.Context, c *framework.Client, leases []*Lease) error {
	ctx, cancel := detach(ctx, c)
	defer cancel()
	var errs []error
	for _, l := range leases {
		if err := l.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// detach returns a context for clean-up after ctx may have ended: it keeps
// ctx's values, not its cancellation, and is bounded by the session timeout.
func detach(ctx context.Context, c *framework.Client) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.SessionTimeout())
}
