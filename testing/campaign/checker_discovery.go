package campaign

import "time"

// discoverySettle bounds how long after a fault healed a worker's cache
// must agree with the server's children, its kept instance registered:
// a reconnect (or a new session after an expiry), the registration made
// again, and the cache's reads.
func discoverySettle(sessionTimeout time.Duration) time.Duration {
	return 4*sessionTimeout + 2*time.Second
}

// checkDiscovery judges a discovery campaign's history:
//
//  1. after each fault settles, every worker's cache equals the server's
//     children and its kept instance is registered: some comparison of
//     that worker that began after the fault healed, and ended within
//     discoverySettle, agreed with its instance present (when a later fault
//     strikes the same worker, or the ensemble, within that bound, the
//     later fault's deadline applies instead); the campaign stops the
//     churn of registrations while it awaits that (churnGate);
//  2. no instance node outlived the clients;
//  3. every worker registered and unregistered an instance, and saw its
//     cache agree with its kept instance present, after the last fault
//     healed.
func checkDiscovery(holds []Hold, final endState, faults []Fault, clients int, healedAt, sessionTimeout time.Duration) Verdict {
	v := Verdict{Acquisitions: len(holds), Orphans: len(final.Orphans)}
	settle := discoverySettle(sessionTimeout)
	agreed := func(c int, from, to time.Duration) bool {
		for i := range holds {
			h := &holds[i]
			if h.Client == c && h.Target == targetCache && h.Outcome == Accepted && h.Enter >= from && h.Exit <= to {
				return true
			}
		}
		return false
	}
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
			if deferred {
				continue
			}
			if !agreed(c, f.Healed, deadline) {
				if reported < maxReported {
					v.violate("cache: client %d's cache did not agree with the server, its instance registered, within %s after fault #%d (%s) healed at %s",
						c, fmtDur(settle), f.N, f.Kind, fmtDur(f.Healed))
				}
				reported++
			}
		}
	}
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
	registered := make([]bool, clients)
	for i := range holds {
		if h := &holds[i]; h.Target == targetRegister && h.Outcome == Accepted && h.Enter >= healedAt && h.Client >= 0 && h.Client < clients {
			registered[h.Client] = true
		}
	}
	for c := 0; c < clients; c++ {
		if !registered[c] {
			v.violate("progress: client %d registered no instance after the last fault healed at %s", c, fmtDur(healedAt))
		}
		if !agreed(c, healedAt, 1<<62) {
			v.violate("progress: client %d's cache never agreed with the server, its instance registered, after the last fault healed at %s", c, fmtDur(healedAt))
		}
	}
	return v
}
