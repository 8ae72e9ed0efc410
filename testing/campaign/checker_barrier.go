package campaign

import (
	"fmt"
	"path"
	"slices"
	"time"
)

// checkBarrier judges a barrier campaign's history, round by round (every
// worker goes through every round that began, on the round's own path):
//
//  1. no early pass: a member's Enter returned only after every member of
//     the round had called Enter. The barrier opens once memberQty nodes
//     exist, and a member's node exists only after it called Enter, so
//     this holds whoever fails: a member whose Enter failed still called
//     it, and its node may have counted before its session ended;
//  2. no early leave: a member's Leave returned only after every member
//     that passed Enter in the round had called Leave. The one excuse is
//     the recipe's session rule: a member whose node stopped counting (its
//     session ended, so the server deleted its node) is no member any
//     more, and its Leave fails with ErrMembershipLost; the others need
//     not wait for it. A member whose Leave failed otherwise (a timeout,
//     say) had its node while it waited, so it is not excused;
//  3. no orphans: no member node outlived the clients, and no ready node
//     is left of a round in which every member entered and left without
//     error. The ready node is persistent (Curator's protocol), and only
//     a Leave that finds every member gone deletes it, so in a round in
//     which members failed it may stay: such nodes are counted
//     (ready_left), not judged;
//  4. progress: a round that began after the last fault healed was clean
//     (every member entered and left without error).
//
// A member's failed Enter or Leave is never silent: every failure is
// counted in the summary (failed_enters, failed_leaves, with those that
// lost their membership), and the history line names its error.
func checkBarrier(holds []Hold, final endState, clients int, healedAt time.Duration) Verdict {
	var v Verdict
	rounds := make(map[int][]*Hold)
	for i := range holds {
		if h := &holds[i]; h.Target == targetBarrier && h.Barrier != nil {
			rounds[h.Seq] = append(rounds[h.Seq], h)
		}
	}
	var t barrierTally
	clean := make(map[int]bool)
	reported := 0
	report := func(format string, args ...any) {
		if reported < maxReported {
			v.violate(format, args...)
		}
		reported++
	}
	progressed := false
	for round, recs := range rounds {
		if len(recs) != clients {
			report("round %d: %d members went through it, want all %d", round, len(recs), clients)
		}
		ok, began := checkRound(&t, recs, report)
		clean[round] = ok && len(recs) == clients
		if clean[round] {
			t.clean++
			progressed = progressed || began >= healedAt
		}
		for _, h := range recs {
			if h.Barrier.Entered != never {
				v.Acquisitions++
			}
			if h.Outcome == Accepted {
				v.Accepted++
			}
		}
	}
	t.rounds = len(rounds)
	for _, node := range final.Orphans {
		round, ready := barrierRoundOf(node), path.Base(node) == barrierReady
		switch {
		case ready && !clean[round]:
			t.readyLeft++
		default:
			v.Orphans++
			report("orphans: %s outlived the clients (round %d clean=%t)", node, round, clean[round])
		}
	}
	v.Extra = append(v.Extra, t.fields())
	if !progressed {
		v.violate("progress: no round that began after the last fault healed at %s was clean", fmtDur(healedAt))
	}
	return v
}

// barrierTally counts what the summary line reports of a barrier campaign.
type barrierTally struct {
	rounds, clean            int
	failedEnters, lostEnters int
	failedLeaves, lostLeaves int
	earlyEnters, earlyLeaves int
	excusedLeaves, readyLeft int
}

func (t *barrierTally) fields() string {
	return fmt.Sprintf("rounds=%d clean_rounds=%d failed_enters=%d lost_enters=%d failed_leaves=%d lost_leaves=%d early_enters=%d early_leaves=%d excused_leaves=%d ready_left=%d",
		t.rounds, t.clean, t.failedEnters, t.lostEnters, t.failedLeaves, t.lostLeaves, t.earlyEnters, t.earlyLeaves, t.excusedLeaves, t.readyLeft)
}

// checkRound checks rules 1 and 2 on one round's records, and reports
// whether every member entered and left without error, and when the round
// began (its first Enter).
func checkRound(t *barrierTally, recs []*Hold, report func(string, ...any)) (clean bool, began time.Duration) {
	clean, began = true, never
	lastEnter := never
	for _, h := range recs {
		r := h.Barrier
		lastEnter = max(lastEnter, r.EnterAt)
		if began == never || r.EnterAt < began {
			began = r.EnterAt
		}
		clean = clean && h.Outcome == Accepted
		switch {
		case r.EnterErr != "":
			t.failedEnters++
			if r.EnterLost {
				t.lostEnters++
			}
		case r.LeaveErr != "":
			t.failedLeaves++
			if r.LeaveLost {
				t.lostLeaves++
			}
		}
	}
	for _, m := range recs {
		if m.Barrier.Entered != never && m.Barrier.Entered < lastEnter {
			t.earlyEnters++
			last := recs[slices.IndexFunc(recs, func(h *Hold) bool { return h.Barrier.EnterAt == lastEnter })]
			report("early enter: round %d: c%d passed Enter before c%d called it:\n    %s\n    %s", m.Seq, m.Client, last.Client, m.String(), last.String())
		}
		if m.Barrier.Left == never {
			continue
		}
		for _, p := range recs {
			pr := p.Barrier
			if p == m || pr.Entered == never || (pr.LeaveAt != never && pr.LeaveAt <= m.Barrier.Left) {
				continue
			}
			if pr.LeaveLost {
				t.excusedLeaves++
				continue
			}
			t.earlyLeaves++
			report("early leave: round %d: c%d returned from Leave before c%d, which had passed Enter, called it:\n    %s\n    %s", m.Seq, m.Client, p.Client, m.String(), p.String())
		}
	}
	return clean, began
}
