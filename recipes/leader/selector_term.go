package leader

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// armNodeWatch sets the watch on the lock node that ends a term when the
// node is deleted, and returns the session that owns the node. ok is false
// when the node is gone, belongs to a session the client no longer has, or
// cannot be read before the hold becomes uncertain or ctx ends.
func (s *LeaderSelector) armNodeWatch(ctx context.Context, node string) (owner framework.Session, w <-chan zk.Event, ok bool) {
	ctx, stop := until(ctx, s.mutex.Lost(), nil, nil)
	defer stop()
	stat, w, err := s.client.ExistsW(ctx, node)
	if err != nil || stat == nil {
		return framework.Session{}, nil, false
	}
	if owner = s.client.SessionOf(stat.EphemeralOwner); !owner.IsCurrent() {
		return framework.Session{}, nil, false
	}
	return owner, w, true
}

// watchHold ends t when the mutex's hold is no longer certain or ctx (the
// selector's life, which ends with the client) ends, and returns when t has
// ended.
func (s *LeaderSelector) watchHold(ctx context.Context, t *term) {
	select {
	case <-s.mutex.Lost():
		t.end(s.lostCause("the lock is no longer certain"))
	case <-ctx.Done():
		if cause := context.Cause(ctx); errors.Is(cause, errClientClosed) {
			t.end(cause)
		} else {
			t.end(ErrClosed)
		}
	case <-t.Done():
	}
}

// lostCause is the cause of a term that ended for why: errClientClosed
// when the client was closed, which also ends the hold and the node's
// watches.
func (s *LeaderSelector) lostCause(why string) error {
	if clientClosed(s.client) {
		return errClientClosed
	}
	return lost(why)
}

// watchNode ends t when the lock node is found deleted, and returns when t
// has ended; w is the watch armNodeWatch set. A request that fails (the
// connection is down) is tried again after a pause; watchHold ends the term
// meanwhile if the client's error policy says so.
func (s *LeaderSelector) watchNode(t *term, w <-chan zk.Event) {
	var err error
	for t.live() {
		select {
		case ev := <-w:
			if ev.Type != zk.EventNodeDataChanged {
				t.end(s.lostCause("the lock node was deleted or is no longer watched"))
				return
			}
		case <-t.Done():
			return
		case <-retryAfter(err):
		}
		var stat *zk.Stat
		stat, w, err = s.client.ExistsW(t.ctx, t.Node)
		switch {
		case err != nil:
			w = nil
		case stat == nil:
			t.end(s.lostCause("the lock node was deleted"))
			return
		}
	}
}

// retryAfter returns a channel that fires after a pause when err is not
// nil, and nil (never fires) otherwise.
func retryAfter(err error) <-chan time.Time {
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return time.After(minPause * 4)
}
