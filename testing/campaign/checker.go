package campaign

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// maxReported bounds how many instances of one kind of violation a Verdict
// spells out; the counts are always complete.
const maxReported = 10

// endState is the ensemble's state after every client closed.
type endState struct {
	Counter int64
	Fence   int64
	Acks    []ack    // the acknowledgement nodes: the writes that applied
	Orphans []string // children of the lock path left behind
	// Replicas describes how the members' trees differ when they disagree
	// (nil when they agree).
	Replicas []string
	// Alarms are the members' own reports, in their logs, that their state
	// lost consistency (serverAlarms).
	Alarms []string
	// Long and Count are the counter campaign's final values.
	Long, Count int64
	// Queued are the items left in the queue campaign's queue, each as
	// often as a node holds it.
	Queued []string
}

// Verdict is the checker's judgement of a campaign's history.
type Verdict struct {
	Acquisitions  int
	Accepted      int // writes that applied (acknowledgement nodes)
	RejectedStale int // writes refused by the fence: stale token or changed versions
	StaleAccepted int // applied writes whose token was not above the one applied before
	Unapplied     int // writes that failed without a verdict and did not apply
	Overlaps      int // pairs of holds inside the critical section at once, neither having seen Lost
	Orphans       int
	Counters      []counterTally // the counter campaign's totals, per target
	// Diverged is set when the members disagreed on the campaign's tree
	// after syncing with the leader: ZooKeeper lost its own consistency, and
	// the run says nothing about the recipes (its other verdicts are void).
	Diverged bool
	// Extra are a workload's own "name=value" fields of the summary line
	// (the cache, barrier and queue campaigns').
	Extra      []string
	Violations []string
}

// extraFields renders Extra for the summary line (" name=value …").
func (v *Verdict) extraFields() string {
	if len(v.Extra) == 0 {
		return ""
	}
	return " " + strings.Join(v.Extra, " ")
}

// OK reports whether every property held.
func (v *Verdict) OK() bool { return len(v.Violations) == 0 }

func (v *Verdict) violate(format string, args ...any) {
	v.Violations = append(v.Violations, fmt.Sprintf(format, args...))
}

// check judges a history (holds ordered by Enter, as recorder.sortedHolds
// returns them) and the final state against the campaign's five properties:
//
//  1. no two clients were inside the critical section at once (two
//     exclusive holds, or an exclusive and a shared one) while neither had
//     seen its Lost channel closed;
//  2. every applied write carried a strictly larger fencing token than the
//     one applied before it;
//  3. the final counter equals the number of applied writes, and the fence
//     holds the last applied token;
//  4. no lock node outlived the clients;
//  5. every client made progress (an applied write; with reads, also a clean
//     read) in holds entered after healedAt.
//
// It marks each hold's Applied from the acknowledgement nodes.
func check(holds []Hold, final endState, clients int, healedAt time.Duration, reads bool) Verdict {
	v := Verdict{Acquisitions: len(holds), Orphans: len(final.Orphans)}
	resolveWrites(&v, holds, final.Acks)
	checkOverlaps(&v, holds)
	checkFencing(&v, final)
	if v.Orphans > 0 {
		v.violate("orphans: %d lock node(s) outlived their clients: %v", v.Orphans, final.Orphans)
	}
	done := progressOf(holds, clients, healedAt, reads, func(r *Hold) bool { return r.Applied })
	for c, ok := range done {
		if !ok {
			what := "an applied write"
			if reads {
				what += " and a clean read"
			}
			v.violate("progress: client %d made no %s after the last fault healed at %s", c, what, fmtDur(healedAt))
		}
	}
	return v
}

// resolveWrites decides which writes applied, from the acknowledgement nodes,
// and checks that the workers' own view agrees with the ensemble's.
func resolveWrites(v *Verdict, holds []Hold, acks []ack) {
	type key struct{ client, seq int }
	byKey := make(map[key]ack, len(acks))
	for _, a := range acks {
		byKey[key{a.Client, a.Seq}] = a
	}
	v.Accepted = len(acks)
	for i := range holds {
		h := &holds[i]
		if h.Mode != Exclusive {
			continue
		}
		a, ok := byKey[key{h.Client, h.Seq}]
		delete(byKey, key{h.Client, h.Seq})
		h.Applied = ok
		switch {
		case ok && !h.wrote():
			v.violate("write: c%d#%d applied although it never sent a write (%s)", h.Client, h.Seq, h.Outcome)
		case ok && a.Token != h.Token:
			v.violate("write: c%d#%d applied with token %#x, but its hold had token %#x", h.Client, h.Seq, a.Token, h.Token)
		case !ok && h.Outcome == Accepted:
			v.violate("write: c%d#%d was accepted but left no acknowledgement: the write was lost", h.Client, h.Seq)
		case !ok && (h.Outcome == Stale || h.Outcome == Conflict):
			v.RejectedStale++
		case !ok && h.Outcome == Unknown:
			v.Unapplied++
		}
	}
	for k := range byKey {
		v.violate("write: acknowledgement c%d#%d matches no recorded hold", k.client, k.seq)
	}
}

// checkReplicas reports an ensemble whose members disagree on the campaign's
// outcome after each synced with the leader, or whose members reported in
// their logs that they lost consistency in a run with violations: ZooKeeper
// lost its own consistency, and what the recipes did can no longer be
// judged from the state. Alarms in a run without violations change nothing.
func checkReplicas(v *Verdict, final endState) {
	switch {
	case final.Replicas != nil:
		v.Diverged = true
		v.violate("ensemble: the members disagree after syncing with the leader (ZooKeeper's replicas diverged): %s", strings.Join(final.Replicas, "; "))
	case final.Alarms != nil && len(v.Violations) > 0:
		v.Diverged = true
		v.violate("ensemble: ZooKeeper reported its own state inconsistent during the run, so the violations above judge it, not the recipes: %s", strings.Join(final.Alarms, "; "))
	}
}

// checkOverlaps counts pairs of holds of different clients whose clean
// windows (from Enter until Exit or the first sight of Lost) intersect,
// where at least one of the two is exclusive. A frozen contender's window
// also ends when the nemesis froze it: a stopped process can neither act
// nor learn that its session expired, and no lock can keep it from waking
// up believing it holds; from then on the fence alone must refuse its
// write (checkFencing counts an applied stale write).
func checkOverlaps(v *Verdict, holds []Hold) {
	reported := 0
	for i := range holds {
		a := &holds[i]
		aEnd := a.cleanUntil()
		for j := i + 1; j < len(holds) && holds[j].Enter < aEnd; j++ {
			b := &holds[j]
			if b.Client == a.Client || (a.Mode == Shared && b.Mode == Shared) || b.cleanUntil() <= b.Enter {
				continue
			}
			v.Overlaps++
			if reported < maxReported {
				reported++
				v.violate("overlap: both inside the critical section with Lost unseen:\n    %s\n    %s", a.String(), b.String())
			}
		}
	}
}

// checkFencing checks properties 2 and 3 on the applied writes, ordered by
// the counter value each wrote.
func checkFencing(v *Verdict, final endState) {
	acks := append([]ack(nil), final.Acks...)
	sort.Slice(acks, func(i, j int) bool { return acks[i].Value < acks[j].Value })
	reported := 0
	var lastToken int64
	for i, a := range acks {
		if a.Value != int64(i+1) && reported < maxReported {
			reported++
			v.violate("counter: applied write c%d#%d wrote %d as the %d-th applied write", a.Client, a.Seq, a.Value, i+1)
		}
		if a.Token <= lastToken {
			v.StaleAccepted++
		}
		if a.Token <= lastToken && reported < maxReported {
			reported++
			v.violate("fencing: applied write c%d#%d (value %d) carried token %#x, not above the previous %#x", a.Client, a.Seq, a.Value, a.Token, lastToken)
		}
		lastToken = max(lastToken, a.Token)
	}
	if final.Counter != int64(len(acks)) {
		v.violate("counter: final counter %d, but %d writes applied", final.Counter, len(acks))
	}
	if final.Fence != lastToken {
		v.violate("fencing: final fence %#x, but the last applied token was %#x", final.Fence, lastToken)
	}
}
