package campaign

import (
	"fmt"
	"slices"
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
//  3. every value in 1..final that no applied increment wrote was written by
//     an increment of unknown outcome of its own, one that had begun before
//     the value was read (checkGaps);
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
		var unknown []time.Duration // when each increment of unknown outcome began
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
				unknown = append(unknown, h.Enter)
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
		} else {
			checkGaps(&v, target, t.Final, posts, unknown)
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

// checkGaps checks that the values in 1..final no applied increment wrote
// (the gaps) can each have been written by an increment of unknown outcome
// of its own. A gap was written before any value above it, and an applied
// increment that wrote a value above it ended after its write: so the
// unknown increment that wrote the gap began before the earliest Exit of
// the applied increments above it. Without this, any unknown increment of
// the run, even one begun long after, would excuse an increment applied
// twice (a retry after its first write's reply was lost) or a failed one
// that applied. An unknown increment's write may land after its own Exit,
// so only its beginning bounds it.
func checkGaps(v *Verdict, target string, final int64, posts map[int64]*Hold, unknown []time.Duration) {
	type gap struct {
		value  int64
		before *Hold // the applied increment above it that ended first; nil: none
	}
	var gaps []gap // by value, falling: their bounds only fall
	var before *Hold
	for g := final; g >= 1; g-- {
		h, ok := posts[g]
		switch {
		case !ok:
			gaps = append(gaps, gap{g, before})
		case before == nil || h.Exit < before.Exit:
			before = h
		}
	}
	// The unknown increments each gap may take are nested (those begun
	// before its bound), so by Hall's theorem a gap of its own for each
	// exists when the k gaps with the earliest bounds have k to take from.
	slices.Reverse(gaps)
	for k, g := range gaps {
		if g.before == nil {
			return // the rest have no bound: the final value's check covers them
		}
		began := 0
		for _, at := range unknown {
			if at < g.before.Exit {
				began++
			}
		}
		if began < k+1 {
			v.violate("%s: %d value(s) up to %d were written by no applied increment, but only %d increment(s) of unknown outcome had begun before %s, when an increment that wrote a value above them ended (an increment applied twice, or a failed one applied):\n    %s",
				target, k+1, g.value, began, fmtDur(g.before.Exit), g.before)
			return
		}
	}
}
