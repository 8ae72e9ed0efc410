package campaign

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxFreezeDelay bounds how long after its first increment began the
// counter campaign's contender is stopped: short of one increment's round
// trips, so that most freezes strike an increment in flight.
const maxFreezeDelay = 4 * time.Millisecond

// freezeIncrement: the contender increments the long one increment after
// another; a drawn moment after the first began, the process is stopped for
// f.Hold and continued, and the increment in flight finishes with what it
// read before the freeze. Every increment is recorded as an Increment hold;
// the one the freeze struck is Frozen, and one without a report counts as
// unknown, as any increment whose outcome its caller did not learn.
func (cs *contenders) freezeIncrement(ctx context.Context, f *Fault, p *proc) error {
	id := f.Client
	first, ok := p.next(ctx, 14*cs.session)
	if !ok || first.words[0] != "INC" || len(first.words) != 2 {
		f.Note = "the contender began no increment: " + lastLine(p.stderr.String())
		return nil
	}
	drawn := float64(f.Hold-2*cs.session) / float64(cs.session) // the fault's drawn fraction, in [0, 1)
	sleepCtx(ctx, time.Duration(drawn*float64(maxFreezeDelay)))
	frozenAt, thawedAt, err := p.pause(ctx, f.Hold)
	if err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}

	incs := make(map[int]*Hold)
	var order []*Hold
	begin := func(l line) {
		seq, _ := strconv.Atoi(l.words[1])
		h := &Hold{Client: id, Seq: seq, Mode: Increment, Target: targetLong, Enter: l.at, Exit: never,
			Write: never, LostAt: never, FrozenAt: never, ThawedAt: never, Outcome: Unknown}
		incs[seq] = h
		order = append(order, h)
	}
	begin(first)
	for done := false; !done; {
		l, ok := p.next(ctx, 8*cs.session)
		if !ok {
			break
		}
		switch {
		case l.words[0] == "DONE":
			done = true
		case l.words[0] == "INC" && len(l.words) == 2:
			begin(l)
		case l.words[0] == "INCED" && len(l.words) >= 5:
			seq, _ := strconv.Atoi(l.words[1])
			h := incs[seq]
			if h == nil {
				return fmt.Errorf("contender %d: a report of increment %d, never begun", id, seq)
			}
			h.Exit, h.Outcome = l.at, outcomeNamed(l.words[2])
			h.Counter, _ = strconv.ParseInt(l.words[3], 10, 64)
			h.Post, _ = strconv.ParseInt(l.words[4], 10, 64)
			h.Err = strings.Join(l.words[5:], " ")
		}
	}
	frozen := "none in flight"
	for _, h := range order {
		if h.Enter < thawedAt && (h.Exit == never || h.Exit > thawedAt) { // begun before the thaw, ended after
			h.Frozen, h.FrozenAt, h.ThawedAt = true, frozenAt, thawedAt
			frozen = h.Outcome.String()
		}
		if h.Exit == never {
			h.Exit, h.Err = cs.clock.now(), "no report: "+lastLine(p.stderr.String())
		}
		cs.history.add(*h)
	}
	f.Note = fmt.Sprintf("increments begun: %d; the one frozen in flight: %s", len(order), frozen)
	return nil
}
