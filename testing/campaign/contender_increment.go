package campaign

import (
	"context"
	"fmt"
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
	if !ok || first.words[0] != "INC" {
		f.Note = "the contender began no increment: " + lastLine(p.stderr.String())
		return nil
	}
	drawn := float64(f.Hold-2*cs.session) / float64(cs.session) // the fault's drawn fraction, in [0, 1)
	sleepCtx(ctx, time.Duration(drawn*float64(maxFreezeDelay)))
	frozenAt, thawedAt, err := p.pause(ctx, f.Hold)
	if err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}

	incs := make(map[int64]*Hold)
	var order []*Hold
	begin := func(l line) error {
		seq, err := reportInts(l, 1)
		if err != nil {
			return err
		}
		if incs[seq[0]] != nil {
			return fmt.Errorf("increment %d begun twice", seq[0])
		}
		// It began when the contender wrote INC: an unknown increment may
		// have written a value from then on (checkGaps).
		h := &Hold{Client: id, Seq: int(seq[0]), Mode: Increment, Target: targetLong, Enter: l.stamp, Exit: never,
			Write: never, LostAt: never, FrozenAt: never, ThawedAt: never, Outcome: Unknown}
		incs[seq[0]] = h
		order = append(order, h)
		return nil
	}
	if err := begin(first); err != nil {
		return fmt.Errorf("contender %d: %w", id, err)
	}
	for done := false; !done; {
		l, ok := p.next(ctx, 8*cs.session)
		if !ok {
			break
		}
		var err error
		switch l.words[0] {
		case "DONE":
			done = true
		case "INC":
			err = begin(l)
		case "INCED":
			err = ended(incs, l)
		}
		if err != nil {
			return fmt.Errorf("contender %d: %w", id, err)
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

// ended records an INCED report (seq, outcome, pre and post values, an
// error) on the increment it ends.
func ended(incs map[int64]*Hold, l line) error {
	if len(l.words) < 5 {
		return fmt.Errorf("bad report %q", strings.Join(l.words, " "))
	}
	nums, err := parseInts(l, l.words[1], l.words[3], l.words[4])
	if err != nil {
		return err
	}
	h := incs[nums[0]]
	if h == nil || h.Exit != never {
		return fmt.Errorf("report %q of an increment not in flight", strings.Join(l.words, " "))
	}
	h.Exit, h.Outcome, h.Counter, h.Post = l.at, outcomeNamed(l.words[2]), nums[1], nums[2]
	h.Err = strings.Join(l.words[5:], " ")
	return nil
}
