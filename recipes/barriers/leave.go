package barriers

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
)

// Leave removes this member and waits until every member has left, by
// Curator's protocol (see the package documentation): the member with the
// lowest node keeps it until it is the only one left, watching the highest;
// every other member deletes its node and waits for the lowest to go. It
// fails with ErrNotEntered without a successful Enter, and with
// ErrMembershipLost (after deleting the stale node) when the session that
// created our node is gone while it still counts. On an error our node, if
// we still have it, is deleted (in the background once ctx has ended).
func (b *DistributedDoubleBarrier) Leave(ctx context.Context) (err error) {
	b.mu.Lock()
	m := b.memberLocked()
	b.owner = framework.Session{}
	b.mu.Unlock()
	if m.owner.ID() == 0 {
		return fmt.Errorf("%w: %s", ErrNotEntered, m.path)
	}
	holding := true // our node should exist (Curator's ourNodeShouldExist)
	defer func() {
		if err != nil && holding {
			m.deleteNode(ctx)
		}
	}()
	// Until our node is gone, a step that fails because its session is gone
	// is a lost membership; after, only the others' leaving is awaited.
	fail := func(doing string, err error) error {
		if holding {
			return m.failed("leave", doing, err)
		}
		return b.errorf("leave", doing, err)
	}
	back, stop := reconnects(b.c)
	defer stop()
	for {
		if holding && !m.isCurrent() {
			return m.lost(nil)
		}
		members, err := b.members(ctx)
		if err != nil {
			return fail("listing the members", err)
		}
		if len(members) == 0 {
			break
		}
		ours := slices.Index(members, m.name)
		if holding && ours < 0 {
			return m.lost(nil)
		}
		if len(members) == 1 {
			// The last one: ours (delete it), or, ours gone, another's;
			// Curator leaves then too.
			if holding {
				if err := b.c.Delete(ctx, m.path); err != nil {
					return fail("deleting our member node", err)
				}
				holding = false
			}
			break
		}
		watched, waiting := members[0], fmt.Sprintf("waiting for %s, the lowest member, to leave", members[0])
		if ours == 0 {
			watched = members[len(members)-1]
			waiting = fmt.Sprintf("waiting for every other member to leave (%d still in; watching %s, the highest)", len(members)-1, watched)
		}
		stat, watch, err := b.c.ExistsW(ctx, framework.JoinPath(b.path, watched))
		if err != nil {
			return fail(waiting, err)
		}
		if holding && ours != 0 {
			if err := b.c.Delete(ctx, m.path); err != nil {
				return fail("deleting our member node", err)
			}
			holding = false
		}
		if stat == nil {
			continue
		}
		select {
		case <-watch:
		case <-back:
		case <-ctx.Done():
			return fail(waiting, ctx.Err())
		}
	}
	if err := b.c.Delete(ctx, b.readyPath); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return b.errorf("leave", "deleting the ready node", err)
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
