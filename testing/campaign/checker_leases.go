package campaign

import (
	"sort"
	"time"
)

// checkLeases judges a semaphore campaign's history (holds ordered by Enter)
// and final state:
//
//  1. never more than maxLeases leases were held at once by workers that
//     had not seen the lease's Lost channel closed;
//  2. no lease node and no node of the semaphore's lock outlived the
//     clients;
//  3. every client held a lease without seeing Lost in a hold entered after
//     healedAt.
//
// Overlaps counts the holds that, entering, found maxLeases clean leases
// already held.
func checkLeases(holds []Hold, final endState, clients int, healedAt time.Duration, maxLeases int) Verdict {
	v := Verdict{Acquisitions: len(holds), Orphans: len(final.Orphans)}
	checkLeaseCount(&v, holds, maxLeases)
	if v.Orphans > 0 {
		v.violate("orphans: %d lease or lock node(s) outlived their clients: %v", v.Orphans, final.Orphans)
	}
	done := progressOf(holds, clients, healedAt, false, func(*Hold) bool { return false })
	for c, ok := range done {
		if !ok {
			v.violate("progress: client %d held no lease without seeing Lost after the last fault healed at %s", c, fmtDur(healedAt))
		}
	}
	return v
}

// checkLeaseCount sweeps the clean windows (from Enter until Exit or the
// first sight of Lost) in time order and flags every hold that entered while
// maxLeases others were clean. A window that ends at the instant another
// begins does not overlap it.
func checkLeaseCount(v *Verdict, holds []Hold, maxLeases int) {
	type edge struct {
		at    time.Duration
		delta int
		hold  int
	}
	var edges []edge
	for i := range holds {
		h := &holds[i]
		if end := h.cleanUntil(); end > h.Enter {
			edges = append(edges, edge{h.Enter, +1, i}, edge{end, -1, i})
		}
	}
	sort.SliceStable(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta // ends before starts at the same instant
	})
	clean := make(map[int]bool)
	for _, e := range edges {
		if e.delta < 0 {
			delete(clean, e.hold)
			continue
		}
		if len(clean) >= maxLeases {
			v.Overlaps++
			if v.Overlaps <= maxReported {
				v.violate("overlap: %d leases held with Lost unseen; maxLeases is %d:\n%s", len(clean)+1, maxLeases, leaseWindows(holds, clean, e.hold))
			}
		}
		clean[e.hold] = true
	}
}

// leaseWindows lists the holds of a violation, oldest first.
func leaseWindows(holds []Hold, clean map[int]bool, entering int) string {
	idx := []int{entering}
	for i := range clean {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	s := ""
	for _, i := range idx {
		s += "    " + holds[i].String() + "\n"
	}
	return s[:len(s)-1]
}
