package campaign

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The ensemble's own faults: partitions between members and paused member
// processes. Each is held past the ensemble's sync limit, so that it changes
// who leads or who serves, and is healed before the next fault.

// planEnsemble fills in a partition or pause drawn by plan: pick indexes
// the followers, bridge the members, client is the client to pin when aimed.
func (n *nemesis) planEnsemble(f *Fault, client, pick, bridge int, lerp func(lo, hi time.Duration) time.Duration) {
	sl := n.cluster.SyncLimit()
	switch f.Kind {
	case PartitionLeader, PartitionFollower:
		f.Member, f.Hold = pick, lerp(sl+time.Second, 3*sl)
		if f.aim {
			f.Client = client
		}
	case PartitionBridge:
		f.Member, f.Hold = bridge, lerp(sl+time.Second, 3*sl)
	case PauseLeader, PauseFollower:
		f.Member, f.Hold = pick, lerp(sl+time.Second, 3*sl)
	}
}

// injectEnsemble strikes the leader or a follower (f.Member indexes the
// followers in member order) or, for a bridge, the member f.Member, holds
// the fault for f.Hold and heals it.
func (n *nemesis) injectEnsemble(ctx context.Context, f *Fault) error {
	leader, err := n.leader(ctx)
	if err != nil {
		return err
	}
	switch f.Kind {
	case PartitionLeader, PauseLeader:
		f.Member = leader
	case PartitionFollower, PauseFollower:
		f.Member = followerAt(leader, f.Member)
	}
	size := n.cluster.Size()
	switch f.Kind {
	case PartitionLeader, PartitionFollower:
		if err := n.cluster.Partition([]int{f.Member}, othersThan(size, f.Member)); err != nil {
			return err
		}
		n.parted = true
		if f.Client >= 0 {
			n.pin(f.Client, f.Member)
			f.Note = strings.TrimPrefix(fmt.Sprintf("%s; client %d pinned to member %d", f.Note, f.Client, f.Member), "; ")
		}
	case PartitionBridge:
		rest := othersThan(size, f.Member)
		half := len(rest) / 2
		if err := n.cluster.Partition(append([]int{f.Member}, rest[:half]...), append([]int{f.Member}, rest[half:]...)); err != nil {
			return err
		}
		n.parted = true
	case PauseLeader, PauseFollower:
		if err := n.cluster.Pause(f.Member); err != nil {
			return fmt.Errorf("pause member %d: %w", f.Member, err)
		}
		n.paused[f.Member] = true
	}
	sleepCtx(ctx, f.Hold)
	return n.healAll()
}

// pin pauses client c's proxies to every member but member, so that the
// client can reach that member alone.
func (n *nemesis) pin(c, member int) {
	for j, p := range n.proxies[c] {
		if j != member {
			p.Pause()
		}
	}
}

// followerAt maps i, an index into the followers in member order, to a member.
func followerAt(leader, i int) int {
	if i >= leader {
		return i + 1
	}
	return i
}

// othersThan lists the members 0..size-1 but m.
func othersThan(size, m int) []int {
	out := make([]int, 0, size-1)
	for i := range size {
		if i != m {
			out = append(out, i)
		}
	}
	return out
}
