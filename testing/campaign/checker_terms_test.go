package campaign

import "testing"

func TestCheckElectionPassesTermsWithRisingTokens(t *testing.T) {
	deposed := write(1, 0, 10, 30, 101)
	deposed.LostAt, deposed.Outcome = 20*ms, Stale // saw its term end before the next began
	holds := []Hold{write(0, 0, 0, 10, 100), deposed, write(2, 0, 25, 40, 102), write(0, 1, 40, 50, 104), write(1, 1, 50, 60, 105)}
	f := finalOf(holds)
	if v := checkElection(holds, f, 3, 0); !v.OK() {
		t.Fatalf("a correct election was judged %q", v.Violations)
	}
}

func TestCheckElectionCatchesATermWithALowerTokenAfterAnother(t *testing.T) {
	// The later term wrote nothing, so the fence never saw its token.
	late := write(1, 0, 20, 30, 90)
	late.Outcome, late.Write = NoWrite, never
	holds := []Hold{write(0, 0, 0, 10, 100), late}
	v := checkElection(holds, finalOf(holds), 2, 0)
	if violationsWith(v, "terms: a term entered after another ended") != 1 {
		t.Fatalf("a term with a lower token after another was not reported once: %q", v.Violations)
	}

	// One that had seen its term end as it entered promises nothing.
	late.LostAt = late.Enter
	holds = []Hold{write(0, 0, 0, 10, 100), late}
	if v := checkElection(holds, finalOf(holds), 2, 0); violationsWith(v, "terms:") != 0 {
		t.Fatalf("a term seen ended on entry was judged: %q", v.Violations)
	}
}

func TestCheckElectionCatchesSharedAndMissingTokens(t *testing.T) {
	again := write(1, 0, 20, 30, 100)
	again.Outcome = Stale
	none := write(2, 0, 40, 50, 0)
	none.Outcome, none.Write = NoWrite, never
	holds := []Hold{write(0, 0, 0, 10, 100), again, none}
	v := checkElection(holds, finalOf(holds), 3, 0)
	if violationsWith(v, "terms: two terms share token") != 1 {
		t.Errorf("two terms with one token were not reported once: %q", v.Violations)
	}
	if violationsWith(v, "terms: c2#0 led without a fencing token") != 1 {
		t.Errorf("a term without a token was not reported once: %q", v.Violations)
	}
}
