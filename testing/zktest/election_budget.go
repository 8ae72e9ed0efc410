package zktest

import "time"

// electionAttempts is how many elections a leader change is allowed: a new
// leader whose followers do not sync within the init limit gives up, and
// the members elect again.
const electionAttempts = 2

// ElectionBudget returns how long, at worst on this machine, the ensemble
// takes to report a leader again after it lost one (killed, paused or cut
// off) while a quorum of members runs: the followers notice the loss within
// the sync limit; then each of two elections takes the election's own
// timeouts (a connect to an unreachable member, a round of notifications,
// the wait for a better vote) and the init limit in which the followers
// sync with the new leader; and, on top, the slowest start of a member so
// far, from launching its JVM until it led or followed, which measures how
// long an election's work takes under this machine's present load. Tests
// that await a new leader take their bound from it rather than from a
// constant that a loaded machine's slow JVMs can exceed.
func (c *Cluster) ElectionBudget() time.Duration {
	tick := c.members[0].inst.cfg.tickTime
	initial := time.Duration(ticks(initLimit, tick, initLimitTicks)) * tick
	election := electionConnectTimeout + maxNotificationInterval + finalizeWait + initial
	var slowest time.Duration
	for _, m := range c.members {
		slowest = max(slowest, m.SlowestStart())
	}
	return c.SyncLimit() + electionAttempts*election + slowest
}
