package barriers

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
)

// member is one Enter's (and the Leave that follows it) node of a double
// barrier, and the session that owns it.
type member struct {
	b     *DistributedDoubleBarrier
	name  string
	path  string
	owner framework.Session // the zero Session (id 0) until the node is created
}

// create creates our ephemeral node and returns the session that owns it
// (owned.Create), creating it again if it turns out to belong to an old
// session.
func (m *member) create(ctx context.Context) (framework.Session, error) {
	c := m.b.c
	create := func(ctx context.Context) (string, error) {
		_, err := c.Create(ctx, m.path, nil, framework.WithMode(framework.Ephemeral), framework.CreatingParentContainersIfNeeded())
		if errors.Is(err, zk.ErrNodeExists) {
			// The name is ours alone: an existing node is one an earlier
			// attempt created, whose reply was lost. Its owner is read.
			return "", errExists
		}
		return m.path, err
	}
	for attempt := 0; attempt < 3; attempt++ {
		_, owner, err := owned.Create(ctx, c, create)
		if errors.Is(err, errExists) {
			owner, err = m.readOwner(ctx)
		}
		if err != nil {
			return framework.Session{}, err
		}
		if owner.IsCurrent() {
			return owner, nil
		}
		if owner.ID() != 0 {
			if err := c.Delete(ctx, m.path, framework.Quietly()); err != nil {
				return framework.Session{}, err
			}
		}
	}
	return framework.Session{}, fmt.Errorf("%w: %s keeps belonging to an old session", ErrMembershipLost, m.path)
}

// errExists marks a create that found our node there already.
var errExists = errors.New("our member node exists")

// readOwner returns the session that owns our node; of id 0 when it is gone.
func (m *member) readOwner(ctx context.Context) (framework.Session, error) {
	stat, err := m.b.c.Exists(ctx, m.path)
	if err != nil || stat == nil {
		return framework.Session{}, err
	}
	return m.b.c.SessionOf(stat.EphemeralOwner), nil
}

// isCurrent reports whether the session that owns our node is the client's.
func (m *member) isCurrent() bool { return m.owner.IsCurrent() }

// failed reports err from a step of op (what it was doing), as a lost
// membership when the session that owns our node is gone by now: a call
// that ran across the session change may fail for that reason alone (our
// node and an empty container parent deleted with the session, for
// example).
func (m *member) failed(op, doing string, err error) error {
	if !m.isCurrent() || errors.Is(err, zk.ErrNoNode) {
		return m.lost(err)
	}
	return m.b.errorf(op, doing, err)
}

// lost is ErrMembershipLost for our node, with the error that revealed it,
// if any; or framework.ErrClosed when the client closed, which ends every
// session.
func (m *member) lost(cause error) error {
	select {
	case <-m.b.c.Done():
		return fmt.Errorf("barriers: member %s: %w", m.path, framework.ErrClosed)
	default:
	}
	err := fmt.Errorf("%w: %s belongs to session 0x%x, which the client no longer has", ErrMembershipLost, m.path, m.owner.ID())
	if m.isCurrent() {
		err = fmt.Errorf("%w: %s is gone", ErrMembershipLost, m.path)
	}
	if cause != nil {
		err = fmt.Errorf("%w (%w)", err, cause)
	}
	return err
}

// deleteNode deletes our node after a failed call without outlasting ctx:
// while ctx lasts it tries at once; what does not finish then (ctx ended,
// the connection is down) the client goes on with in the background until
// the node is gone or the client closes (a guaranteed delete), and the next
// Enter deletes it first (dropStale).
func (m *member) deleteNode(ctx context.Context) {
	if err := m.b.c.Delete(ctx, m.path, framework.Guaranteed(), framework.Quietly()); err != nil {
		m.b.noteStale(m.name)
		m.b.c.Logger().Debug("barriers: deleting our member node goes on in the background", zap.String("path", m.path), zap.Error(err))
	}
}
