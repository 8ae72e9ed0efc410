package zktest

import (
	"fmt"
	"time"
)

// Partition splits the ensemble's own network: two members can reach each
// other, over their quorum and election links, only if some group lists
// both, and a member listed in no group reaches no other. Groups may
// overlap: Partition([]int{0, 1}, []int{1, 2}) is a bridge, where member 1
// sees both sides and members 0 and 2 do not see each other. Cut links are
// silent (bytes are held, not refused); links a call restores drop what they
// held and the members reconnect. Clients' links to members are not touched:
// a client connected to a member on the minority side stays there as long as
// that member serves it. Each call replaces the previous partition.
func (c *Cluster) Partition(groups ...[]int) error {
	return c.net.partition(groups)
}

// Heal restores every link between members.
func (c *Cluster) Heal() {
	all := make([]int, len(c.members))
	for i := range all {
		all[i] = i
	}
	_ = c.net.partition([][]int{all}) // every member is in range
}

// Cut returns, for each member, the members it cannot reach now (nil when
// it reaches all).
func (c *Cluster) Cut() [][]int { return c.net.cuts() }

// Pause stops member i's process (SIGSTOP), as a long garbage-collection
// pause or a suspended virtual machine would: its connections stay open and
// nothing answers on them until Resume. Kill, Restart and Close work on a
// paused member.
func (c *Cluster) Pause(i int) error {
	m, err := c.member(i)
	if err != nil {
		return err
	}
	return m.signalPause(true)
}

// Resume continues member i's process after Pause (SIGCONT). Resuming a
// member that is not paused does nothing.
func (c *Cluster) Resume(i int) error {
	m, err := c.member(i)
	if err != nil {
		return err
	}
	return m.signalPause(false)
}

// signalPause stops or continues the server's process group.
func (s *Server) signalPause(stop bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.exited() {
		return fmt.Errorf("zktest: pause or resume ZooKeeper %s: not running", s.Addr())
	}
	if err := pauseProcessGroup(s.proc.cmd.Process, stop); err != nil {
		return fmt.Errorf("zktest: pause or resume ZooKeeper %s: %w", s.Addr(), err)
	}
	return nil
}

// SyncLimit is how long a follower may go unheard before its leader drops
// it, and a leader before its followers give up on it: a partition or a
// pause longer than this changes who serves.
func (c *Cluster) SyncLimit() time.Duration {
	tick := c.members[0].inst.cfg.tickTime
	return time.Duration(ticks(syncLimit, tick, syncLimitTicks)) * tick
}
