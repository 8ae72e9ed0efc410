package barriers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/google/uuid"

	"github.com/zkcurator/zkcurator/framework"
)

// readyNode is the child whose existence opens the double barrier (Curator's
// READY_NODE).
const readyNode = "ready"

// cleanupTimeout bounds the deletion of our node after Enter failed.
const cleanupTimeout = 5 * time.Second

// DistributedDoubleBarrier is Curator's DistributedDoubleBarrier: Enter
// waits until memberQty members have entered, Leave until all have left. One
// handle is one member; its calls must not overlap.
type DistributedDoubleBarrier struct {
	c         *framework.Client
	path      string
	memberQty int
	ourName   string
	ourPath   string
	readyPath string

	mu    sync.Mutex
	owner int64 // session that owns our node, once entered; 0 when not
}

// NewDistributedDoubleBarrier returns a member of the double barrier at path
// that opens once memberQty members (at least 1) have entered.
func NewDistributedDoubleBarrier(c *framework.Client, path string, memberQty int) (*DistributedDoubleBarrier, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil client for the double barrier at %q", ErrInvalidArgument, path)
	}
	if err := framework.ValidatePath(path); err != nil {
		return nil, fmt.Errorf("%w: double barrier path: %w", ErrInvalidArgument, err)
	}
	if memberQty < 1 {
		return nil, fmt.Errorf("%w: member count %d for the double barrier at %q, want at least 1", ErrInvalidArgument, memberQty, path)
	}
	name := uuid.New().String()
	return &DistributedDoubleBarrier{
		c: c, path: path, memberQty: memberQty,
		ourName:   name,
		ourPath:   framework.JoinPath(path, name),
		readyPath: framework.JoinPath(path, readyNode),
	}, nil
}

// MemberPath returns this member's node path.
func (b *DistributedDoubleBarrier) MemberPath() string { return b.ourPath }

// Enter adds this member and waits until memberQty members have entered (or
// the barrier is already open). On an error our node is deleted; the error
// matches ErrMembershipLost when the session that created it was lost first.
func (b *DistributedDoubleBarrier) Enter(ctx context.Context) (err error) {
	back, stop := reconnects(b.c)
	defer stop()
	ready, readyWatch, err := b.c.ExistsW(ctx, b.readyPath)
	if err != nil {
		return fmt.Errorf("barriers: enter %s: %w", b.path, err)
	}
	owner, err := b.createOurs(ctx)
	if err != nil {
		return fmt.Errorf("barriers: enter %s: %w", b.path, err)
	}
	defer func() {
		if err != nil {
			b.deleteOurs(ctx)
		}
	}()
	for {
		if !b.isCurrent(owner) {
			return b.lost(owner, nil)
		}
		if ready != nil {
			break
		}
		// Count again on every wake, not only the first time as Curator
		// does: a member that counted enough may have failed before it
		// created the ready node.
		opened, err := b.countAndOpen(ctx)
		if err != nil {
			return b.failed("enter", owner, err)
		}
		if opened {
			break
		}
		select {
		case <-readyWatch:
		case <-back:
		case <-ctx.Done():
			return b.failed("enter", owner, ctx.Err())
		}
		if ready, readyWatch, err = b.c.ExistsW(ctx, b.readyPath); err != nil {
			return b.failed("enter", owner, err)
		}
	}
	if !b.isCurrent(owner) {
		return b.lost(owner, nil)
	}
	b.mu.Lock()
	b.owner = owner
	b.mu.Unlock()
	return nil
}

// createOurs creates our ephemeral node and returns the session that owns
// it, creating it again if it turns out to belong to an old session.
func (b *DistributedDoubleBarrier) createOurs(ctx context.Context) (int64, error) {
	for attempt := 0; attempt < 3; attempt++ {
		before := b.c.SessionID()
		_, err := b.c.Create(ctx, b.ourPath, nil, framework.WithMode(framework.Ephemeral), framework.CreatingParentContainersIfNeeded())
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return 0, err
		}
		// The name is ours alone: an existing node is one an earlier attempt
		// created, whose reply was lost.
		if after := b.c.SessionID(); err == nil && before != 0 && before == after {
			return before, nil
		}
		stat, err := b.c.Exists(ctx, b.ourPath)
		if err != nil {
			return 0, err
		}
		if stat != nil && b.isCurrent(stat.EphemeralOwner) {
			return stat.EphemeralOwner, nil
		}
		if stat != nil {
			if err := b.c.Delete(ctx, b.ourPath, framework.WithVersion(stat.Version)); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return 0, err
			}
		}
	}
	return 0, fmt.Errorf("%w: %s keeps belonging to an old session", ErrMembershipLost, b.ourPath)
}

// countAndOpen counts the children and creates the ready node if there are
// enough, reporting whether it did (or found it).
func (b *DistributedDoubleBarrier) countAndOpen(ctx context.Context) (bool, error) {
	children, _, err := b.c.Children(ctx, b.path)
	if err != nil {
		return false, err
	}
	if len(children) < b.memberQty {
		return false, nil
	}
	_, err = b.c.Create(ctx, b.readyPath, nil)
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return false, err
	}
	return true, nil
}

// failed reports err from a step of op, as a lost membership when the
// session that owns our node is gone by now: a call that ran across the
// session change may fail for that reason alone (our node and an empty
// container parent deleted with the session, for example).
func (b *DistributedDoubleBarrier) failed(op string, owner int64, err error) error {
	if !b.isCurrent(owner) || errors.Is(err, zk.ErrNoNode) {
		return b.lost(owner, err)
	}
	return fmt.Errorf("barriers: %s %s: %w", op, b.path, err)
}

// lost is ErrMembershipLost for our node, owned by session owner, with the
// error that revealed it, if any.
func (b *DistributedDoubleBarrier) lost(owner int64, cause error) error {
	err := fmt.Errorf("%w: %s belongs to session 0x%x, which the client no longer has", ErrMembershipLost, b.ourPath, owner)
	if b.isCurrent(owner) {
		err = fmt.Errorf("%w: %s is gone", ErrMembershipLost, b.ourPath)
	}
	if cause != nil {
		err = fmt.Errorf("%w (%w)", err, cause)
	}
	return err
}

func (b *DistributedDoubleBarrier) isCurrent(owner int64) bool {
	return owner != 0 && owner == b.c.SessionID()
}

// deleteOurs deletes our node, even after ctx ended, within cleanupTimeout.
func (b *DistributedDoubleBarrier) deleteOurs(ctx context.Context) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := b.c.Delete(dctx, b.ourPath); err != nil && !errors.Is(err, zk.ErrNoNode) {
		b.c.Logger().Sugar().Warnw("barriers: deleting our member node failed", "path", b.ourPath, "error", err)
	}
}

// Leave removes this member and waits until every member has left. It
// fails with ErrNotEntered without a successful Enter, and with
// ErrMembershipLost (after deleting the stale node) when the session that
// created our node is gone.
func (b *DistributedDoubleBarrier) Leave(ctx context.Context) error {
	b.mu.Lock()
	owner := b.owner
	b.owner = 0
	b.mu.Unlock()
	if owner == 0 {
		return fmt.Errorf("%w: %s", ErrNotEntered, b.ourPath)
	}
	if !b.isCurrent(owner) {
		b.deleteOurs(ctx)
		return b.lost(owner, nil)
	}
	back, stop := reconnects(b.c)
	defer stop()
	ourNodeShouldExist := true
	for {
		members, err := b.members(ctx)
		if err != nil {
			return fmt.Errorf("barriers: leave %s: %w", b.path, err)
		}
		if len(members) == 0 {
			break
		}
		if ourNodeShouldExist && !slices.Contains(members, b.ourName) {
			return b.lost(owner, nil)
		}
		highest := framework.JoinPath(b.path, members[len(members)-1])
		stat, watch, err := b.c.ExistsW(ctx, highest)
		if err != nil {
			return fmt.Errorf("barriers: leave %s: %w", b.path, err)
		}
		if ourNodeShouldExist {
			if err := b.c.Delete(ctx, b.ourPath); err != nil && !errors.Is(err, zk.ErrNoNode) {
				return fmt.Errorf("barriers: leave %s: %w", b.path, err)
			}
			ourNodeShouldExist = false
		}
		if stat == nil {
			continue
		}
		select {
		case <-watch:
		case <-back:
		case <-ctx.Done():
			return fmt.Errorf("barriers: leave %s: %w", b.path, ctx.Err())
		}
	}
	if err := b.c.Delete(ctx, b.readyPath); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("barriers: leave %s: %w", b.path, err)
	}
	return nil
}

// members returns the member names, sorted, without the ready node.
func (b *DistributedDoubleBarrier) members(ctx context.Context) ([]string, error) {
	children, _, err := b.c.Children(ctx, b.path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	children = slices.DeleteFunc(children, func(n string) bool { return n == readyNode })
	slices.Sort(children)
	return children, nil
}
