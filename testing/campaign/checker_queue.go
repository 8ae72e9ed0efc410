package campaign

import (
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// queueTally is a queue campaign's totals, the summary line's queue fields.
type queueTally struct {
	Put       int // puts that returned their node
	Taken     int // takes whose consumer completed the item (returned nil)
	Unknown   int // puts of unknown outcome (ErrOutcomeUnknown)
	Lost      int // returned puts that were neither taken nor left in the queue
	Doubled   int // extra appearances (takes, or nodes left) of one put, unexcused
	Failed    int // puts that failed and did not apply
	Remaining int // items left in the queue at the end
	Retaken   int // extra appearances excused: the earlier taker's connection failed (docs/campaign.md)
	Abandoned int // takes whose consumer's ctx ended first: the item stayed
}

func (t queueTally) fields() []string {
	return []string{
		fmt.Sprintf("put=%d", t.Put), fmt.Sprintf("taken=%d", t.Taken), fmt.Sprintf("unknown=%d", t.Unknown),
		fmt.Sprintf("lost=%d", t.Lost), fmt.Sprintf("doubled=%d", t.Doubled), fmt.Sprintf("failed=%d", t.Failed),
		fmt.Sprintf("remaining=%d", t.Remaining), fmt.Sprintf("retaken=%d", t.Retaken), fmt.Sprintf("abandoned=%d", t.Abandoned),
	}
}

// checkQueue judges a queue campaign's history (puts and takes, ordered by
// Enter), its clients' connection states and the items left in the queue.
// An item's appearances are its completed takes and the nodes left that
// hold it:
//
//  1. a put that returned its node appears at least once (else lost);
//  2. a put of unknown outcome appears at most once, one that failed never;
//  3. no put appears twice (doubled), except a take again of an item whose
//     earlier taker's client reported SUSPENDED or LOST after that take
//     began and before the next appearance (the delete may not have reached
//     the server: the at-least-once window docs/queues.md names); such an
//     appearance counts as retaken;
//  4. every appearance is of an item some producer put;
//
// and, as for the locks, no lock node outlived the clients and every client
// progressed (a returned put, or a completed take) after the last fault.
func checkQueue(holds []Hold, states []StateChange, final endState, clients int, healedAt time.Duration) Verdict {
	v := Verdict{Acquisitions: len(holds), Orphans: len(final.Orphans)}
	var t queueTally
	puts := make(map[string]*Hold)
	takes := make(map[string][]*Hold)
	for i := range holds {
		h := &holds[i]
		switch {
		case h.Mode != Queued:
		case h.Target == opPut:
			puts[h.Item] = h
		case h.Outcome == Accepted:
			t.Taken++
			takes[h.Item] = append(takes[h.Item], h)
		default:
			t.Abandoned++
		}
	}
	left := make(map[string]int)
	for _, item := range final.Queued {
		left[item]++
		t.Remaining++
		if puts[item] == nil {
			v.violate("queue: item %q is left in the queue, but no producer put it", item)
		}
	}
	for item, ts := range takes {
		if puts[item] == nil {
			v.violate("queue: item %q was taken, but no producer put it:\n    %s", item, ts[0])
		}
	}
	for item, p := range puts {
		ts := takes[item]
		seen := len(ts) + left[item]
		switch p.Outcome {
		case Accepted:
			t.Put++
			if seen == 0 {
				t.Lost++
				v.violate("queue: lost: the put of %q returned its node, but no consumer took it and it is not in the queue:\n    %s", item, p)
			}
		case Unknown:
			t.Unknown++
			if seen == 0 {
				v.Unapplied++
			}
		default:
			t.Failed++
			if seen > 0 {
				t.Doubled += seen
				v.violate("queue: the put of %q failed (%s), yet it appeared %d time(s):\n    %s", item, p.Err, seen, p)
				continue
			}
		}
		if seen > 1 {
			retaken := excusedAppearances(ts, left[item], states)
			t.Retaken += retaken
			if extra := seen - 1 - retaken; extra > 0 {
				t.Doubled += extra
				v.violate("queue: doubled: %q appeared %d time(s) (%d take(s), %d node(s) left), %d of them with no connection failure of the earlier taker to excuse it:\n    %s%s",
					item, seen, len(ts), left[item], extra, p, takesText(ts))
			}
		}
	}
	v.Accepted = t.Put
	v.Extra = t.fields()
	if v.Orphans > 0 {
		v.violate("orphans: %d lock node(s) of the queue outlived their clients: %v", v.Orphans, final.Orphans)
	}
	for c, ok := range progressOf(holds, clients, healedAt, false, func(h *Hold) bool { return h.Outcome == Accepted }) {
		if !ok {
			v.violate("progress: client %d completed no put or take after the last fault healed at %s", c, fmtDur(healedAt))
		}
	}
	return v
}

// excusedAppearances counts the appearances after the first of an item
// taken as ts (in Enter order) and left in left nodes that the earlier
// taker's connection excuses: a take again, when the client of the take
// before it reported SUSPENDED or LOST between that take's Enter and this
// take's Enter; a node left, when the last taker's client did so after its
// take's Enter. The earlier take's Enter, not its Exit, bounds the window:
// the queue learns of a failed connection through its own listener, which
// may end the consumer's ctx only after the consumer found it alive and
// returned.
func excusedAppearances(ts []*Hold, left int, states []StateChange) int {
	n := 0
	for i := 1; i < len(ts); i++ {
		if interrupted(states, ts[i-1].Client, ts[i-1].Enter, ts[i].Enter) {
			n++
		}
	}
	if len(ts) > 0 && left > 0 && interrupted(states, ts[len(ts)-1].Client, ts[len(ts)-1].Enter, never) {
		n += left
	}
	return n
}

// interrupted reports whether client reported SUSPENDED or LOST at or after
// from and, unless until is never, at or before until.
func interrupted(states []StateChange, client int, from, until time.Duration) bool {
	for _, s := range states {
		if s.Client == client && s.At >= from && (until == never || s.At <= until) &&
			(s.State == framework.Suspended || s.State == framework.Lost) {
			return true
		}
	}
	return false
}

func takesText(ts []*Hold) string {
	s := ""
	for _, h := range ts {
		s += "\n    " + h.String()
	}
	return s
}
