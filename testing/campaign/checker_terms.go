package campaign

import "time"

// elections reports whether k is an election, whose holds are terms.
func (k LockKind) elections() bool { return k == ElectionLatch || k == ElectionSelector }

// checkElection judges an election campaign's history (terms ordered by
// Enter) and final state: the lock properties of check, and those of
// checkTerms.
func checkElection(holds []Hold, final endState, clients int, healedAt time.Duration) Verdict {
	v := check(holds, final, clients, healedAt, false)
	checkTerms(&v, holds)
	return v
}

// checkTerms checks what an election promises beyond mutual exclusion. Each
// term leads through a node of its own, so:
//
//  1. every term has a fencing token, and no two terms share one;
//  2. a term that a worker entered without having seen it end carries a
//     higher token than every term whose clean window (from Enter until
//     Exit or the first sight of Lost) had ended by then.
//
// The second holds whether or not the terms wrote: the fence sees only the
// writes that applied, this sees every term.
func checkTerms(v *Verdict, holds []Hold) {
	reported := 0
	report := func(format string, args ...any) {
		if reported < maxReported {
			reported++
			v.violate(format, args...)
		}
	}
	byToken := make(map[int64]*Hold, len(holds))
	for i := range holds {
		h := &holds[i]
		if h.Mode != Exclusive {
			continue
		}
		if h.Token == 0 {
			report("terms: c%d#%d led without a fencing token:\n    %s", h.Client, h.Seq, h.String())
			continue
		}
		if other, ok := byToken[h.Token]; ok {
			report("terms: two terms share token %#x:\n    %s\n    %s", h.Token, other.String(), h.String())
			continue
		}
		byToken[h.Token] = h
	}
	for j := range holds {
		b := &holds[j]
		if b.Mode != Exclusive || b.Token == 0 || b.cleanUntil() <= b.Enter {
			continue
		}
		for i := 0; i < j; i++ {
			a := &holds[i]
			if a.Mode != Exclusive || a.Token == 0 || a.cleanUntil() > b.Enter || a.Token < b.Token {
				continue
			}
			report("terms: a term entered after another ended carries a token not above it:\n    %s\n    %s", a.String(), b.String())
		}
	}
}
