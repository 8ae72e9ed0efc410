package campaign

import (
	"testing"
)

// A frozen writer of the read/write lock: its hold is clean until it froze
// (a read before then overlaps it, one while it slept does not), and its
// stale write, had the fence let it apply, is reported.
func TestCheckReadWriteJudgesAFrozenWriter(t *testing.T) {
	a := frozen(6, 0, 10, 400, 420, 100)
	r := read(0, 1, 200, 250)       // while a slept
	b := write(1, 0, 300, 350, 101) // a newer writer while a slept
	holds := []Hold{a, r, b}
	if v := check(holds, finalOf(holds), 0, 0, true); !v.OK() {
		t.Fatalf("a frozen writer whose write the fence refused was judged %q", v.Violations)
	}

	early := read(2, 1, 5, 8) // before a froze: an overlap
	a.Outcome = Accepted      // a's old token applied after b's newer one
	holds = []Hold{a, early, r, b}
	f := finalOf([]Hold{b, a})
	v := check(holds, f, 0, 0, true)
	if v.Overlaps != 1 || violationsWith(v, "overlap:") != 1 {
		t.Errorf("Overlaps = %d, violations %q; want the read before the freeze", v.Overlaps, v.Violations)
	}
	if v.StaleAccepted != 1 || violationsWith(v, "fencing:") == 0 {
		t.Errorf("StaleAccepted = %d, violations %q; want the frozen writer's stale write", v.StaleAccepted, v.Violations)
	}
}

// A frozen leader (a LeaderLatch or LeaderSelector term in a stopped
// process) is a term like any other: the terms checker sees its token, a
// term entered after it froze must carry a higher one, and its stale write
// applied after a newer term's is reported.
func TestCheckElectionJudgesAFrozenLeader(t *testing.T) {
	a := frozen(6, 0, 10, 400, 420, 100)
	b := write(0, 0, 200, 250, 101)
	holds := []Hold{a, b}
	if v := checkElection(holds, finalOf(holds), 0, 0); !v.OK() {
		t.Fatalf("a frozen leader refused by the fence was judged %q", v.Violations)
	}

	low := write(1, 0, 300, 350, 99) // entered after a froze, below a's token
	low.Outcome, low.Write = NoWrite, never
	holds = []Hold{a, low}
	if v := checkElection(holds, finalOf(holds), 0, 0); violationsWith(v, "terms: a term entered after another ended") != 1 {
		t.Errorf("a term below the frozen leader's token after it froze: violations %q; want one", v.Violations)
	}

	same := write(1, 0, 300, 350, 100) // shares the frozen leader's token
	same.Outcome, same.Write = NoWrite, never
	holds = []Hold{a, b, same}
	if v := checkElection(holds, finalOf(holds), 0, 0); violationsWith(v, "terms: two terms share token") != 1 {
		t.Errorf("a term sharing the frozen leader's token: violations %q; want one", v.Violations)
	}

	a.Outcome = Accepted
	holds = []Hold{a, b}
	v := checkElection(holds, finalOf([]Hold{b, a}), 0, 0)
	if v.StaleAccepted != 1 || violationsWith(v, "fencing:") == 0 {
		t.Errorf("StaleAccepted = %d, violations %q; want the frozen leader's stale write", v.StaleAccepted, v.Violations)
	}
}

// frozenInc is an increment of the long by a contender process that was
// frozen while it was in flight.
func frozenInc(outcome Outcome, pre int64) Hold {
	h := inc(6, 0, targetLong, outcome, pre)
	h.Frozen, h.FrozenAt, h.ThawedAt, h.Exit = true, 0, 400*ms, 420*ms
	return h
}

// An increment frozen in flight applied once or not at all: unknown, it may
// be either; reported applied, its post value must be its own; and it may
// never apply twice.
func TestCheckCountersJudgesAFrozenIncrement(t *testing.T) {
	workers := []Hold{inc(0, 1, targetLong, Accepted, 0), inc(1, 2, targetLong, Accepted, 1)}
	for _, tc := range []struct {
		name   string
		frozen Hold
		final  int64
		want   string // "" for a correct history
	}{
		{"unknown, applied", frozenInc(Unknown, 0), 3, ""},
		{"unknown, not applied", frozenInc(Unknown, 0), 2, ""},
		{"accepted after the others", frozenInc(Accepted, 2), 3, ""},
		{"unknown, applied twice", frozenInc(Unknown, 0), 4, "long: final value 4"},
		{"accepted, applied twice", frozenInc(Accepted, 2), 4, "long: final value 4"},
		{"accepted with its old read", frozenInc(Accepted, 1), 3, "long: two applied increments both wrote 2"},
		{"refused, yet applied", frozenInc(Conflict, 0), 3, "long: final value 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			holds := append([]Hold{tc.frozen}, workers...)
			v := checkCounters(holds, endState{Long: tc.final}, 0, 0)
			if tc.want == "" && !v.OK() {
				t.Fatalf("a correct history was judged %q", v.Violations)
			}
			if tc.want != "" && violationsWith(v, tc.want) != 1 {
				t.Fatalf("violations %q; want one starting %q", v.Violations, tc.want)
			}
		})
	}
	if v := checkCounters([]Hold{frozenInc(Unknown, 0)}, endState{}, 0, 0); v.Unapplied != 1 || v.Counters[0].Unknown != 1 {
		t.Errorf("a frozen increment without a verdict: Unapplied %d, tally %+v; want it counted unknown", v.Unapplied, v.Counters[0])
	}
}

// An increment applied twice (its first write's reply lost in the freeze,
// then a retry from the value it wrote) leaves a value no applied increment
// wrote. An increment of unknown outcome begun only after that value had
// been read cannot have written it, so it does not excuse the double.
func TestCheckCountersFlagsADoubleExcusedByALaterUnknown(t *testing.T) {
	// w0 0->1, w1 1->2; the frozen increment wrote 3 unreported, then 3->4.
	doubled := frozenInc(Accepted, 3)
	later := inc(1, 9, targetLong, Unknown, 0)
	later.Enter, later.Exit = 600*ms, 610*ms // after the frozen increment wrote 4 and ended
	holds := []Hold{doubled, inc(0, 1, targetLong, Accepted, 0), inc(1, 2, targetLong, Accepted, 1), later}
	v := checkCounters(holds, endState{Long: 4}, 0, 0)
	if violationsWith(v, "long: 1 value(s) up to 3 were written by no applied increment") != 1 {
		t.Errorf("a doubled frozen increment excused by a later unknown: violations %q; want one", v.Violations)
	}

	// An unknown increment begun before 4 was written may have written 3.
	early := inc(1, 0, targetLong, Unknown, 0)
	early.Exit = 500 * ms
	holds = []Hold{frozenInc(Accepted, 3), inc(0, 1, targetLong, Accepted, 0), inc(1, 2, targetLong, Accepted, 1), early}
	if v := checkCounters(holds, endState{Long: 4}, 0, 0); !v.OK() {
		t.Errorf("an unknown increment begun in time was judged %q", v.Violations)
	}
}
