package campaign

import (
	"fmt"
	"strings"
	"time"
)

// counterTally is one counter's totals in a counter campaign.
type counterTally struct {
	Target   string
	Final    int64 // the node's value after every client closed
	Applied  int64 // increments reported applied exactly once
	Unknown  int64 // increments whose outcome was unknown
	Failed   int64 // increments reported not applied (conflict or error)
	Promoted int64 // increments that reached the promoted lock
}

// counterFields renders the tallies as the summary line's counter fields
// (" long_final=… long_applied=… …"); it is empty for the other kinds.
func (v *Verdict) counterFields() string {
	var b strings.Builder
	for _, t := range v.Counters {
		fmt.Fprintf(&b, " %[1]s_final=%[2]d %[1]s_applied=%[3]d %[1]s_unknown=%[4]d %[1]s_failed=%[5]d",
			t.Target, t.Final, t.Applied, t.Unknown, t.Failed)
		if t.Target == targetLong {
			fmt.Fprintf(&b, " %s_promoted=%d", t.Target, t.Promoted)
		}
	}
	return b.String()
}

// checkCounters judges a counter campaign's history (Increment holds) and
// final state. For each target:
//
//  1. the final value is the number of increments reported applied plus at
//     most the number whose outcome was unknown: no applied increment was
//     lost and none reported as not applied took effect;
//  2. every applied increment went from its pre value to pre+1, its post
//     value lies in 1..final (the counter only grows), and no two applied
//     increments report the same post value;
//
// and, as for the locks, no node of the promoted lock outlived the clients
// and every client applied an increment after the last fault healed.
func checkCounters(holds []Hold, final endState, clients int, healedAt time.Duration) Verdict {
	v := Verdict{Acquisitions: len(holds), Orphans: len(final.Orphans)}
	for _, target := range []string{targetLong, targetCount} {
		t := counterTally{Target: target, Final: final.Long}
		if target == targetCount {
			t.Final = final.Count
		}
		posts := make(map[int64]*Hold)
		for i := range holds {
			h := &holds[i]
			if h.Mode != Increment || h.Target != target {
				continue
			}
			if h.Promoted {
				t.Promoted++
			}
			switch h.Outcome {
			case Accepted:
				t.Applied++
				if h.Post != h.Counter+1 {
					v.violate("%s: an increment went from %d to %d:\n    %s", target, h.Counter, h.Post, h)
				}
				if h.Post < 1 || h.Post > t.Final {
					v.violate("%s: an applied increment wrote %d, outside 1..%d (the final value):\n    %s", target, h.Post, t.Final, h)
				}
				if prev, dup := posts[h.Post]; dup {
					v.violate("%s: two applied increments both wrote %d:\n    %s\n    %s", target, h.Post, prev, h)
				}
				posts[h.Post] = h
			case Unknown:
				t.Unknown++
			default:
				t.Failed++
			}
		}
		v.Accepted += int(t.Applied)
		v.Unapplied += int(t.Unknown)
		v.Counters = append(v.Counters, t)
		if t.Final < t.Applied || t.Final > t.Applied+t.Unknown {
			v.violate("%s: final value %d, but %d increments applied and %d unknown: want %d..%d",
				target, t.Final, t.Applied, t.Unknown, t.Applied, t.Applied+t.Unknown)
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
