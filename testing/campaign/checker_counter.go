package campaign

import (
	"time"
)

// checkCounters judges a counter campaign's history (Increment holds) and
// final state. For each target:
//
//  1. the final value is the number of increments reported applied plus at
//     most the number whose outcome was unknown: no applied increment was
//     lost and none reported as not applied took effect;
//  2. every applied increment went from its pre value to pre+1, and no two
//     applied increments report the same post value;
//
// and, as for the locks, no node of the promoted lock outlived the clients
// and every client applied an increment after the last fault healed.
func checkCounters(holds []Hold, final endState, clients int, healedAt time.Duration) Verdict {
	v := Verdict{Acquisitions: len(holds), Orphans: len(final.Orphans)}
	for _, target := range []string{targetLong, targetCount} {
		var applied, unknown int64
		posts := make(map[int64]*Hold)
		for i := range holds {
			h := &holds[i]
			if h.Mode != Increment || h.Target != target {
				continue
			}
			switch h.Outcome {
			case Accepted:
				applied++
				if h.Post != h.Counter+1 {
					v.violate("%s: an increment went from %d to %d:\n    %s", target, h.Counter, h.Post, h)
				}
				if prev, dup := posts[h.Post]; dup {
					v.violate("%s: two applied increments both wrote %d:\n    %s\n    %s", target, h.Post, prev, h)
				}
				posts[h.Post] = h
			case Unknown:
				unknown++
			}
		}
		v.Accepted += int(applied)
		v.Unapplied += int(unknown)
		got := final.Long
		if target == targetCount {
			got = final.Count
		}
		if got < applied || got > applied+unknown {
			v.violate("%s: final value %d, but %d increments applied and %d unknown: want %d..%d",
				target, got, applied, unknown, applied, applied+unknown)
		}
	}
	if v.Orphans > 0 {
		v.violate("orphans: %d node(s) of the promoted lock outlived their clients: %v", v.Orphans, final.Orphans)
	}
	for c, ok := range progressOf(holds, clients, healedAt, false, func(h *Hold) bool { return h.Outcome == Accepted }) {
		if !ok {
			v.violate("progress: client %d applied no increment after the last fault healed at %s", c, fmtDur(healedAt))
		}
	}
	return v
}
