package campaign

import (
	"testing"
	"time"
)

// inc is an increment of target by client, applied (pre -> pre+1) or with
// the given outcome.
func inc(client, seq int, target string, outcome Outcome, pre int64) Hold {
	h := Hold{Client: client, Seq: seq, Mode: Increment, Target: target, Outcome: outcome,
		Enter: time.Duration(seq) * ms, Exit: time.Duration(seq+1) * ms, Write: never, LostAt: never}
	if outcome == Accepted {
		h.Counter, h.Post = pre, pre+1
	}
	return h
}

func TestCheckCountersAcceptsExactTotalsWithUnknowns(t *testing.T) {
	holds := []Hold{
		inc(0, 0, targetLong, Accepted, 0), inc(1, 1, targetLong, Unknown, 0), inc(0, 2, targetLong, Accepted, 2),
		inc(1, 3, targetCount, Accepted, 0), inc(0, 4, targetCount, Conflict, 0), inc(1, 5, targetLong, NoWrite, 0),
	}
	// The unknown long increment applied (final 3 = 2 applied + 1 unknown).
	if v := checkCounters(holds, endState{Long: 3, Count: 1}, 2, 0); !v.OK() {
		t.Fatalf("an exact history was judged %+v", v)
	}
	// It did not apply (final 2) and pre values show no gap then: also exact.
	holds[2] = inc(0, 2, targetLong, Accepted, 1)
	if v := checkCounters(holds, endState{Long: 2, Count: 1}, 2, 0); !v.OK() {
		t.Fatalf("an exact history was judged %+v", v)
	}
}

func TestCheckCountersFlagsLostDoubledAndDuplicateIncrements(t *testing.T) {
	holds := []Hold{inc(0, 0, targetLong, Accepted, 0), inc(1, 1, targetLong, Accepted, 1), inc(0, 2, targetCount, Accepted, 0), inc(1, 3, targetCount, Conflict, 0)}
	for _, tc := range []struct {
		name  string
		final endState
		holds []Hold
		want  string
	}{
		{"an applied increment lost", endState{Long: 1, Count: 1}, holds, "long: final value 1"},
		{"a failed increment applied", endState{Long: 2, Count: 2}, holds, "count: final value 2"},
		{"two increments wrote one value", endState{Long: 2, Count: 1},
			[]Hold{inc(0, 0, targetLong, Accepted, 0), inc(1, 1, targetLong, Accepted, 0), inc(0, 2, targetCount, Accepted, 0), inc(1, 3, targetCount, Accepted, 1)},
			"long: two applied increments both wrote 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v := checkCounters(tc.holds, tc.final, 2, 0); violationsWith(v, tc.want) != 1 {
				t.Fatalf("violations %q; want one containing %q", v.Violations, tc.want)
			}
		})
	}
}

// An applied increment whose post value the counter never reached was lost,
// even when unknown outcomes make the total look possible.
func TestCheckCountersFlagsPostBeyondFinal(t *testing.T) {
	holds := []Hold{
		inc(0, 0, targetLong, Accepted, 0), inc(1, 1, targetLong, Accepted, 4),
		inc(0, 2, targetLong, Unknown, 0), inc(1, 3, targetLong, Unknown, 0), inc(0, 4, targetLong, Unknown, 0),
	}
	v := checkCounters(holds, endState{Long: 3}, 2, 0)
	if violationsWith(v, "long: an applied increment wrote 5, outside 1..3") != 1 || len(v.Violations) != 1 {
		t.Fatalf("violations %q; want only the one about post value 5", v.Violations)
	}
}

func TestCheckCountersTalliesForTheSummary(t *testing.T) {
	promoted := inc(1, 1, targetLong, Conflict, 0)
	promoted.Promoted = true
	holds := []Hold{
		inc(0, 0, targetLong, Accepted, 0), promoted, inc(0, 2, targetLong, Unknown, 0),
		inc(1, 3, targetCount, Accepted, 0), inc(0, 4, targetCount, NoWrite, 0),
	}
	v := checkCounters(holds, endState{Long: 2, Count: 1}, 2, 0)
	const want = " long_final=2 long_applied=1 long_unknown=1 long_failed=1 long_promoted=1" +
		" count_final=1 count_applied=1 count_unknown=0 count_failed=1"
	if got := v.counterFields(); !v.OK() || got != want {
		t.Fatalf("fields %q (violations %q); want %q", got, v.Violations, want)
	}
	if got := (&Verdict{}).counterFields(); got != "" {
		t.Fatalf("a lock campaign's verdict has counter fields %q", got)
	}
}
