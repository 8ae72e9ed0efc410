package locks

import (
	"context"
	"errors"
	"path"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// errNilLease reports a call on a nil *Lease.
var errNilLease = errorf("%w: nil *Lease", ErrInvalidArgument)

// Lease is one lease granted by an InterProcessSemaphoreV2: an ephemeral node
// under the semaphore's leases path, created by the client's current session.
// It lasts until Close, or until the session that created it ends. A Lease is
// safe for concurrent use.
type Lease struct {
	client *framework.Client
	path   string
	owner  framework.Session // the session that created the node
	token  int64             // the node's creation zxid, read when the lease was granted
	closed atomic.Bool
	began  time.Time
	met    *lockMetrics

	lost       chan struct{}
	lostOnce   sync.Once
	stop       context.CancelFunc // stops the node watcher; nil for a lease never granted
	stopListen func()
	watcher    sync.WaitGroup
}

// newLease starts watching a lease that has just been granted: the client's
// connection and session, and the lease node itself, whose first watch
// (events) was set when the node was read for its creation zxid (token).
func newLease(c *framework.Client, p string, owner framework.Session, token int64, events <-chan zk.Event, met *lockMetrics) *Lease {
	l := &Lease{client: c, path: p, owner: owner, token: token, began: time.Now(), met: met, lost: make(chan struct{})}
	met.leases.Add(1)
	l.stopListen = c.Listen(l.check)
	l.check(c.State())
	ctx, stop := context.WithCancel(context.Background())
	l.stop = stop
	l.watcher.Add(1)
	go l.watchNode(ctx, events)
	return l
}

// FencingToken returns the creation zxid (czxid) of the lease's node, read
// when the lease was granted; it makes no request. Tokens grow from one lease
// holder to the next across the ensemble, so storage that remembers the
// highest token it has seen can refuse the writes of a holder whose lease
// ended. A nil lease returns 0.
func (l *Lease) FencingToken() int64 {
	if l == nil {
		return 0
	}
	return l.token
}

// Lost returns a channel that is closed when holding the lease is no longer
// certain: the connection is in an error state of the client's error policy
// (Suspended under the standard policy, Lost under the session policy), the
// client's session is no longer the one that created the lease node, the node
// was found deleted, or the lease was closed. A nil lease returns a closed
// channel.
func (l *Lease) Lost() <-chan struct{} {
	if l == nil {
		return closedChan
	}
	if !l.closed.Load() && !l.owner.IsCurrent() {
		l.markLost("the session that created the lease node is gone")
	}
	return l.lost
}

// check closes Lost when the connection is in an error state of the client's
// error policy, or when the client's session no longer owns the lease node.
func (l *Lease) check(s framework.ConnectionState) {
	switch {
	case l.client.ErrorPolicy().IsErrorState(s):
		l.markLost("connection " + s.String())
	case !l.owner.IsCurrent():
		l.markLost("the session that created the lease node is gone")
	}
}

func (l *Lease) markLost(why string) {
	l.lostOnce.Do(func() {
		if !l.closed.Load() {
			l.client.Logger().Warn("lease no longer certain", zap.String("path", l.path), zap.String("reason", why))
			if l.met != nil {
				l.met.lost.Add(1)
			}
		}
		close(l.lost)
	})
}

// Close returns the lease to the semaphore by deleting its node, and closes
// Lost. The delete is guaranteed: if it fails with a connection problem, or
// ctx is done (then Close returns at once, even in a partition), Close
// reports the failure and the client keeps deleting in the background. An
// already deleted node is not an error, calls after the first do nothing, and
// a nil lease reports an error.
func (l *Lease) Close(ctx context.Context) error {
	switch {
	case l == nil:
		return errNilLease
	case ctx == nil:
		return errorf("%w: return lease %s: nil context", ErrInvalidArgument, l.path)
	case !l.closed.CompareAndSwap(false, true):
		return nil
	}
	if l.met != nil { // granted: newLease counted it
		l.met.leases.Add(-1)
		l.met.hold.Observe(framework.Since(l.began))
	}
	l.stopWatching()
	if err := l.client.Delete(ctx, l.path, framework.Guaranteed(), framework.Quietly()); err != nil {
		return errorf("return lease %s: %w", l.path, err)
	}
	return nil
}

// stopWatching ends the lease's listener and node watcher and closes Lost.
// Leases that were never granted have neither.
func (l *Lease) stopWatching() {
	if l.stop != nil {
		l.stopListen()
		l.stop()
		l.watcher.Wait()
	}
	l.markLost("closed")
}

// watchNode closes Lost when the lease node is found deleted or owned by
// another session; events is the watch set when the lease was granted. It
// returns once Lost is closed or ctx ends, so Close never leaves it behind.
func (l *Lease) watchNode(ctx context.Context, events <-chan zk.Event) {
	defer l.watcher.Done()
	if !l.awaitChange(ctx, events, nil) {
		return
	}
	for {
		stat, events, err := l.client.ExistsW(ctx, l.path)
		var retry *time.Timer
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, framework.ErrClosed):
			l.markLost("the client is closed")
			return
		case err != nil:
			l.client.Logger().Debug("watching the lease node failed; retrying", zap.String("path", l.path), zap.Error(err))
			retry = time.NewTimer(l.client.SessionTimeout() / 4)
			events = nil
		case stat == nil:
			l.markLost("lease node deleted")
			return
		case stat.EphemeralOwner != l.owner.ID():
			l.markLost("the lease node belongs to another session")
			return
		}
		if !l.awaitChange(ctx, events, retry) {
			return
		}
	}
}

// awaitChange waits for the node watch to fire or the retry delay to pass,
// and reports false when the watcher should stop instead.
func (l *Lease) awaitChange(ctx context.Context, events <-chan zk.Event, retry *time.Timer) bool {
	var again <-chan time.Time
	if retry != nil {
		defer retry.Stop()
		again = retry.C
	}
	select {
	case <-events:
		return true
	case <-again:
		return true
	case <-l.lost:
	case <-ctx.Done():
	}
	return false
}

// NodeName returns the name of the lease's node, "_c_<uuid>-lease-<sequence>",
// or "" for a nil lease.
func (l *Lease) NodeName() string {
	if l == nil {
		return ""
	}
	return path.Base(l.path)
}

// Path returns the full path of the lease's node (without the client's
// namespace), or "" for a nil lease. It stays the same after Close.
func (l *Lease) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// closeAll returns every lease and reports the failures; ctx is a clean-up's
// (cleanupContext). The deletes are guaranteed, so a failed one goes on in
// the background.
func closeAll(ctx context.Context, leases []*Lease) error {
	var errs []error
	for _, l := range leases {
		if err := l.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrors(errs...)
}
