package campaign

import (
	"fmt"
	"time"
)

// checkCache judges a cache campaign's history:
//
//  1. after each fault settles, every worker's CuratorCache equals the
//     server's subtree, paths and data, with the worker's live node of its
//     current session in it, and the replay of the events its listener was
//     told equals the cache (checkSettled, within settleBound); the
//     campaign stops the writes while it awaits that (churnGate), so a
//     cache that missed an event never agrees;
//  2. no event contradicted the events before it (a creation of a node
//     held, a change or deletion of one not held or held otherwise, a
//     change to an older version): each is an events record;
//  3. no live (ephemeral) node outlived the clients;
//  4. every worker had a write answered, and saw its cache agree, after the
//     last fault healed.
//
// A comparison that caught the cache a moment behind a changing server is
// no fault: the cache learns of a change a round trip after the writer.
func checkCache(holds []Hold, final endState, faults []Fault, clients int, healedAt, sessionTimeout time.Duration) Verdict {
	v := Verdict{Orphans: len(final.Orphans)}
	checkSettled(&v, holds, faults, clients, settleBound(sessionTimeout), "its live node present")
	var writes, comparisons, agreed, differed, contradictions int
	for i := range holds {
		h := &holds[i]
		switch h.Target {
		case targetWrite:
			writes++
			if h.Outcome == Accepted {
				v.Accepted++
			}
		case targetCache:
			comparisons++
			switch h.Outcome {
			case Accepted:
				agreed++
			case Conflict:
				differed++
			}
		case targetEvents:
			if contradictions < maxReported {
				v.violate("events: client %d's listener was told an event that contradicts the ones before: %s", h.Client, h.Err)
			}
			contradictions++
		}
	}
	v.Acquisitions = comparisons
	v.Extra = append(v.Extra, fmt.Sprintf("writes=%d comparisons=%d agreed=%d differed=%d event_contradictions=%d", writes, comparisons, agreed, differed, contradictions))
	if v.Orphans > 0 {
		v.violate("orphans: %d live node(s) outlived their clients: %v", v.Orphans, final.Orphans)
	}
	checkSettledProgress(&v, holds, clients, healedAt, targetWrite, "had no write answered", "its live node present")
	return v
}
