package campaign

import "time"

// settleBound bounds how long after a fault healed a worker's cache must
// agree with the server, its own registration or live node present: a
// reconnect (or a new session after an expiry), the registration or node
// made again, and the cache's reads.
func settleBound(sessionTimeout time.Duration) time.Duration {
	return 4*sessionTimeout + 2*time.Second
}

// checkDiscovery judges a discovery campaign's history:
//
//  1. after each fault settles, every worker's cache equals the server's
//     children and its kept instance is registered (checkSettled); the
//     campaign stops the churn of registrations while it awaits that
//     (churnGate);
//  2. no instance node outlived the clients;
//  3. every worker registered and unregistered an instance, and saw its
//     cache agree with its kept instance present, after the last fault
//     healed.
func checkDiscovery(holds []Hold, final endState, faults []Fault, clients int, healedAt, sessionTimeout time.Duration) Verdict {
	v := Verdict{Acquisitions: len(holds), Orphans: len(final.Orphans)}
	checkSettled(&v, holds, faults, clients, settleBound(sessionTimeout), "its instance registered")
	// A comparison that caught the cache a moment behind the server
	// (Conflict) is no fault: the cache learns of a change a round trip
	// after the writer.
	for i := range holds {
		if h := &holds[i]; h.Target == targetRegister && h.Outcome == Accepted {
			v.Accepted++
		}
	}
	if v.Orphans > 0 {
		v.violate("orphans: %d instance node(s) outlived their clients: %v", v.Orphans, final.Orphans)
	}
	checkSettledProgress(&v, holds, clients, healedAt, targetRegister, "registered no instance", "its instance registered")
	return v
}

// agreedWithin reports whether client c recorded a comparison (targetCache)
// that began at or after from, ended by to and agreed.
func agreedWithin(holds []Hold, c int, from, to time.Duration) bool {
	for i := range holds {
		h := &holds[i]
		if h.Client == c && h.Target == targetCache && h.Outcome == Accepted && h.Enter >= from && h.Exit <= to {
			return true
		}
	}
	return false
}

// checkSettled checks that after each fault every client's cache agreed
// with the server (with what, such as its own node, present): some
// comparison of that client that began after the fault healed, and ended
// within settle, agreed. When a later fault strikes the same client, or
// the ensemble, within that bound, the later fault's deadline applies
// instead.
func checkSettled(v *Verdict, holds []Hold, faults []Fault, clients int, settle time.Duration, what string) {
	reported := 0
	for c := 0; c < clients; c++ {
		for i, f := range faults {
			deadline := f.Healed + settle
			deferred := false
			for _, g := range faults[i+1:] {
				if g.Start < deadline && (g.Client == c || g.Client < 0) {
					deferred = true
					break
				}
			}
			if deferred || agreedWithin(holds, c, f.Healed, deadline) {
				continue
			}
			if reported < maxReported {
				v.violate("cache: client %d's cache did not agree with the server, %s, within %s after fault #%d (%s) healed at %s",
					c, what, fmtDur(settle), f.N, f.Kind, fmtDur(f.Healed))
			}
			reported++
		}
	}
}

// checkSettledProgress checks that every client recorded an accepted
// record of target (its churn) and a comparison that agreed after the last
// fault healed.
func checkSettledProgress(v *Verdict, holds []Hold, clients int, healedAt time.Duration, target, none, what string) {
	churned := make([]bool, clients)
	for i := range holds {
		if h := &holds[i]; h.Target == target && h.Outcome == Accepted && h.Enter >= healedAt && h.Client >= 0 && h.Client < clients {
			churned[h.Client] = true
		}
	}
	for c := 0; c < clients; c++ {
		if !churned[c] {
			v.violate("progress: client %d %s after the last fault healed at %s", c, none, fmtDur(healedAt))
		}
		if !agreedWithin(holds, c, healedAt, 1<<62) {
			v.violate("progress: client %d's cache never agreed with the server, %s, after the last fault healed at %s", c, what, fmtDur(healedAt))
		}
	}
}
