package campaign

import (
	"testing"
	"time"
)

// frozen is a hold of a contender process stopped at frozenAt and continued
// at thawedAt (ms), whose write after waking was refused by the fence.
func frozen(client int, enter, frozenAt, thawedAt, exit, token int64) Hold {
	h := write(client, 0, 0, 0, token)
	h.Enter, h.Exit = ms*time.Duration(enter), ms*time.Duration(exit)
	h.Frozen, h.FrozenAt, h.ThawedAt = true, ms*time.Duration(frozenAt), ms*time.Duration(thawedAt)
	h.Write, h.Outcome = h.Exit, Conflict
	return h
}

// A frozen holder cannot act or learn of its loss until it wakes: its hold
// is clean until it froze, and the holds taken while it slept or after it
// woke are not overlaps with it; its write is for the fence to refuse.
func TestCheckEndsAFrozenHoldersCleanWindowWhenItFroze(t *testing.T) {
	a := frozen(6, 0, 10, 400, 420, 100)
	b := write(0, 0, 200, 250, 101) // while a slept
	c := write(1, 0, 405, 415, 102) // after a woke, before it wrote
	holds := []Hold{a, b, c}
	v := check(holds, finalOf(holds), 2, 0, false)
	if !v.OK() || v.Overlaps != 0 {
		t.Fatalf("a frozen holder's sleep was judged %+v", v)
	}

	// Before it froze it is a holder like any other.
	d := write(2, 0, 5, 8, 99)
	holds = []Hold{a, d, b, c}
	v = check(holds, finalOf(holds), 3, 0, false)
	if v.Overlaps != 1 || violationsWith(v, "overlap:") != 1 {
		t.Fatalf("Overlaps = %d, violations %q; want the one before the freeze", v.Overlaps, v.Violations)
	}
}

// A frozen holder's write that the ensemble applied after a newer token
// wrote is a stale write accepted: counted, and a violation.
func TestCheckCountsAFrozenHoldersStaleWriteAccepted(t *testing.T) {
	b := write(0, 0, 200, 250, 101)
	a := frozen(6, 0, 10, 400, 420, 100)
	a.Outcome = Accepted
	holds := []Hold{b, a} // b applied first, then a's older token
	v := check(holds, finalOf(holds), 1, 0, false)
	if v.StaleAccepted != 1 || violationsWith(v, "fencing:") == 0 {
		t.Fatalf("StaleAccepted = %d, violations %q; want the frozen holder's write", v.StaleAccepted, v.Violations)
	}
}
