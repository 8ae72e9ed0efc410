package barriers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"
	"github.com/google/uuid"

	"github.com/zkcurator/zkcurator/framework"
)

// readyNode is the child whose existence opens the double barrier (Curator's
// READY_NODE).
const readyNode = "ready"

// DistributedDoubleBarrier is Curator's DistributedDoubleBarrier: Enter
// waits until memberQty members have entered, Leave until all have left. One
// handle is one member; its calls must not overlap.
type DistributedDoubleBarrier struct {
	c         *framework.Client
	path      string
	memberQty int
	readyPath string

	mu      sync.Mutex
	ourName string            // our member node's name
	used    bool              // an Enter has used ourName: the next one takes a new name
	owner   framework.Session // session that owns our node, once entered; of id 0 when not
	stale   []string          // names of our earlier nodes that may still stand
}

// NewDistributedDoubleBarrier returns a member of the double barrier at path
// that opens once memberQty members (at least 1) have entered, or an error
// matching ErrInvalidArgument for a nil client, a path that is invalid or
// the root, or a count below 1. It makes no network call.
func NewDistributedDoubleBarrier(c *framework.Client, path string, memberQty int) (*DistributedDoubleBarrier, error) {
	if err := validate("double barrier", c, path); err != nil {
		return nil, err
	}
	if memberQty < 1 {
		return nil, fmt.Errorf("%w: member count %d for the double barrier at %q, want at least 1", ErrInvalidArgument, memberQty, path)
	}
	return &DistributedDoubleBarrier{
		c: c, path: path, memberQty: memberQty,
		ourName:   uuid.New().String(),
		readyPath: framework.JoinPath(path, readyNode),
	}, nil
}

// MemberPath returns this member's node path: the one the next Enter
// creates, or the last Enter created.
func (b *DistributedDoubleBarrier) MemberPath() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return framework.JoinPath(b.path, b.ourName)
}

// Enter adds this member and waits until memberQty members have entered (or
// the barrier is already open). On an error our node is deleted (in the
// background once ctx has ended, so that Enter returns within ctx); the
// error matches ErrMembershipLost when the session that created it was lost
// first.
func (b *DistributedDoubleBarrier) Enter(ctx context.Context) (err error) {
	m := b.newMember()
	if err := b.dropStale(ctx); err != nil {
		return b.errorf("enter", "deleting our earlier member node", err)
	}
	back, stop := reconnects(b.c)
	defer stop()
	ready, readyWatch, err := b.c.ExistsW(ctx, b.readyPath)
	if err != nil {
		return b.errorf("enter", "looking for the ready node", err)
	}
	defer func() {
		if err != nil {
			m.deleteNode(ctx)
		}
	}()
	if m.owner, err = m.create(ctx); err != nil {
		return b.errorf("enter", "creating our member node "+m.path, err)
	}
	in := 0 // members counted last
	for {
		if !m.isCurrent() {
			return m.lost(nil)
		}
		if ready != nil {
			break
		}
		// Count again on every wake, not only the first time as Curator
		// does: a member that counted enough may have failed before it
		// created the ready node.
		var opened bool
		if in, opened, err = b.countAndOpen(ctx); err != nil {
			return m.failed("enter", "counting the members", err)
		}
		if opened {
			break
		}
		select {
		case <-readyWatch:
		case <-back:
		case <-ctx.Done():
			return m.failed("enter", fmt.Sprintf("waiting for %d members to enter (%d in)", b.memberQty, in), ctx.Err())
		}
		if ready, readyWatch, err = b.c.ExistsW(ctx, b.readyPath); err != nil {
			return m.failed("enter", "looking for the ready node", err)
		}
	}
	if !m.isCurrent() {
		return m.lost(nil)
	}
	b.mu.Lock()
	b.owner = m.owner
	b.mu.Unlock()
	return nil
}

// newMember returns this member for a new Enter, under a new name when an
// earlier Enter used the current one: a delete of that node still going on
// in the background must not remove the new one. The node of an Enter that
// was never left is stale from now on.
func (b *DistributedDoubleBarrier) newMember() *member {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used {
		if b.owner.ID() != 0 {
			b.stale = append(b.stale, b.ourName)
		}
		b.ourName = uuid.New().String()
	}
	b.used = true
	b.owner = framework.Session{}
	return b.memberLocked()
}

func (b *DistributedDoubleBarrier) memberLocked() *member {
	return &member{b: b, name: b.ourName, path: framework.JoinPath(b.path, b.ourName), owner: b.owner}
}

// noteStale records that our node name may still stand after a failed
// Enter or Leave whose delete did not finish (the client's background queue
// may still be deleting it).
func (b *DistributedDoubleBarrier) noteStale(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.stale, name) {
		b.stale = append(b.stale, name)
	}
}

// dropStale deletes every node of ours an earlier Enter may have left
// standing, before a new Enter counts: a member never counts a node of its
// own as another member, nor lets another member count it. A name gone
// already is done; a delete that fails keeps the name for the next Enter.
func (b *DistributedDoubleBarrier) dropStale(ctx context.Context) error {
	b.mu.Lock()
	names := slices.Clone(b.stale)
	b.mu.Unlock()
	for _, name := range names {
		p := framework.JoinPath(b.path, name)
		if err := b.c.Delete(ctx, p, framework.Quietly()); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		b.mu.Lock()
		b.stale = slices.DeleteFunc(b.stale, func(n string) bool { return n == name })
		b.mu.Unlock()
	}
	return nil
}

// countAndOpen counts the children and creates the ready node if there are
// enough, reporting the count and whether it did (or found it).
func (b *DistributedDoubleBarrier) countAndOpen(ctx context.Context) (int, bool, error) {
	children, _, err := b.c.Children(ctx, b.path)
	if err != nil {
		return 0, false, err
	}
	if len(children) < b.memberQty {
		return len(children), false, nil
	}
	_, err = b.c.Create(ctx, b.readyPath, nil)
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return len(children), false, err
	}
	return len(children), true, nil
}

// errorf reports err from op on the barrier with what op was doing.
func (b *DistributedDoubleBarrier) errorf(op, doing string, err error) error {
	return fmt.Errorf("barriers: %s %s: %s: %w", op, b.path, doing, err)
}
