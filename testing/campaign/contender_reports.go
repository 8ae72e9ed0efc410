package campaign

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A contender reports on its standard output, one line each, stamped with
// its wall clock (internal/contender documents the lines); these read them.

// line is one report line of a contender: when it was read, when the
// contender wrote it, and its words after the stamp.
type line struct {
	at    time.Duration // read by the campaign
	stamp time.Duration // written by the contender, within [launch, at]
	words []string
}

// reportLine parses text, a contender's report line read at read from a
// process launched at launched: its first word is the wall clock in
// nanoseconds when the contender wrote it, which becomes stamp, an offset
// on clk bounded by launched and read, the interval in which the line was
// certainly written (so a step of the wall clock cannot move it out). A
// line without a stamp is stamped read.
func reportLine(text string, launched, read time.Duration, clk clock) line {
	l := line{at: read, stamp: read, words: strings.Fields(text)}
	if len(l.words) == 0 {
		return l
	}
	ns, err := strconv.ParseInt(l.words[0], 10, 64)
	if err != nil {
		return l
	}
	l.words = l.words[1:]
	l.stamp = min(max(time.Unix(0, ns).Sub(clk.start), launched), read)
	return l
}

// awaitHold reads a contender's reports into rec until it reports what it
// read (HOLD), within the bound: its hold begins when it wrote HELD, the
// moment it took the lock or won the term, before its reads; a LOST
// report, even one before HOLD, ends its clean window when it was read.
// It reports false when the contender reported no reads, and the session
// timeout the server granted the contender (HELD).
func awaitHold(ctx context.Context, p *proc, rec *Hold, within time.Duration) (bool, time.Duration, error) {
	var session time.Duration
	for {
		l, ok := p.next(ctx, within)
		if !ok {
			return false, session, nil
		}
		switch l.words[0] {
		case "LOST":
			if rec.LostAt == never {
				rec.LostAt = l.at
			}
		case "HELD":
			held, err := reportInts(l, 2)
			if err != nil {
				return false, session, err
			}
			rec.Enter, rec.Token, session = l.stamp, held[0], time.Duration(held[1])*time.Millisecond
		case "HOLD":
			read, err := reportInts(l, 3)
			if err != nil {
				return false, session, err
			}
			if rec.Enter == never || read[0] != rec.Token {
				return false, session, fmt.Errorf("report %q does not follow HELD of its token", strings.Join(l.words, " "))
			}
			rec.Fence, rec.Counter = read[1], read[2]
			return true, session, nil
		}
	}
}

// frozenPast marks rec Frozen when it was stopped for longer than session,
// the timeout the server granted the contender (or its lease, when
// shorter): only then may the ensemble have expired its session and let
// another in, and only then does its clean window end when it froze. A
// shorter freeze (a server that raised the timeout above the nemesis's) is
// a pause its lock must outlast: the hold stays clean until Lost or Exit.
func frozenPast(rec *Hold, session time.Duration) {
	rec.Frozen = rec.ThawedAt-rec.FrozenAt > session
}

// awaitWrote reads a contender's reports into rec until it reports its
// write's outcome (WROTE), within the bound. A write without a report may
// have been sent: its outcome is Unknown, decided by its acknowledgement
// node.
func awaitWrote(ctx context.Context, p *proc, rec *Hold, within time.Duration) {
	for {
		l, ok := p.next(ctx, within)
		if !ok {
			rec.Outcome, rec.Err = Unknown, "no report of the write: "+lastLine(p.stderr.String())
			return
		}
		switch l.words[0] {
		case "LOST":
			if rec.LostAt == never {
				rec.LostAt = l.at
			}
		case "WROTE":
			rec.Write, rec.Exit = l.at, l.at
			rec.Outcome = outcomeNamed(strings.Join(l.words[1:2], ""))
			rec.Err = strings.Join(l.words[min(2, len(l.words)):], " ")
			return
		}
	}
}

// reportInts parses the n integers that follow a report line's first word.
func reportInts(l line, n int) ([]int64, error) {
	if len(l.words) != n+1 {
		return nil, fmt.Errorf("bad report %q: want %d numbers", strings.Join(l.words, " "), n)
	}
	return parseInts(l, l.words[1:]...)
}

// parseInts parses words of report line l as integers.
func parseInts(l line, words ...string) ([]int64, error) {
	out := make([]int64, len(words))
	for i, w := range words {
		v, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad report %q: %w", strings.Join(l.words, " "), err)
		}
		out[i] = v
	}
	return out, nil
}

// outcomeNamed is the Outcome whose String is name (Unknown for any other).
func outcomeNamed(name string) Outcome {
	for _, o := range []Outcome{NoWrite, Accepted, Stale, Conflict} {
		if o.String() == name {
			return o
		}
	}
	return Unknown
}
