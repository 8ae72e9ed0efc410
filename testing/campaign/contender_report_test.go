package campaign

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// reports is a contender's output as the campaign reads it: each line
// "<stamp ms> <read ms> WORDS…" becomes a line stamped and read then.
func reports(lines ...string) *proc {
	p := &proc{lines: make(chan line, len(lines))}
	for _, s := range lines {
		var stamp, at int64
		var rest string
		if _, err := fmt.Sscanf(s, "%d %d", &stamp, &at); err != nil {
			panic(s)
		}
		rest = strings.SplitN(s, " ", 3)[2]
		p.lines <- line{at: time.Duration(at) * ms, stamp: time.Duration(stamp) * ms, words: strings.Fields(rest)}
	}
	close(p.lines)
	return p
}

// The contender's stamps are its own wall clock; the campaign bounds each
// by the moments it launched the process and read the line, so a clock
// step cannot place a report where it cannot have been written.
func TestReportLineBoundsTheContendersStamp(t *testing.T) {
	clk := newClock()
	at := func(d time.Duration) string { return fmt.Sprint(clk.start.Add(d).UnixNano()) }
	for _, tc := range []struct {
		name, text string
		want       time.Duration
	}{
		{"within", at(150*ms) + " HELD 7", 150 * ms},
		{"before the launch", at(-time.Hour) + " HELD 7", 100 * ms},
		{"after it was read", at(time.Hour) + " HELD 7", 200 * ms},
		{"no stamp", "HELD 7", 200 * ms},
	} {
		l := reportLine(tc.text, 100*ms, 200*ms, clk)
		if l.at != 200*ms || l.stamp.Round(ms) != tc.want || strings.Join(l.words, " ") != "HELD 7" {
			t.Errorf("%s: %q read as %+v; want stamp %v", tc.name, tc.text, l, tc.want)
		}
	}
}

// A contender holds from the moment it took the lock (HELD), not from when
// it reported what it read after (HOLD): a hold lost during those reads was
// still a hold, and a worker inside the section then overlaps it.
func TestFrozenHolderIsCleanFromWhenItTookTheLock(t *testing.T) {
	p := reports("100 101 HELD 100 800", "149 150 LOST", "199 200 HOLD 100 0 0")
	rec := Hold{Client: 6, Mode: Exclusive, Enter: never, Write: never, LostAt: never, FrozenAt: never, ThawedAt: never}
	ready, session, err := awaitHold(context.Background(), p, &rec, time.Second)
	if err != nil || !ready || rec.Enter != 100*ms || rec.LostAt != 150*ms || rec.Token != 100 || session != 800*ms {
		t.Fatalf("awaitHold = %t, %v, %v; hold %s", ready, session, err, rec.String())
	}
	rec.Frozen, rec.FrozenAt, rec.ThawedAt, rec.Exit, rec.Outcome = true, 300*ms, 900*ms, 950*ms, Conflict
	worker := write(0, 0, 110, 140, 99) // granted while the contender held
	holds := []Hold{rec, worker}
	if v := check(holds, finalOf(holds), 0, 0, false); v.Overlaps != 1 {
		t.Errorf("Overlaps = %d, violations %q; want the worker inside the contender's hold", v.Overlaps, v.Violations)
	}

	for _, bad := range [][]string{
		{"100 101 HOLD 100 0 0"},                         // no HELD
		{"100 101 HELD 100 800", "199 200 HOLD 101 0 0"}, // another token
		{"100 101 HELD x 800"},                           // no number
		{"100 101 HELD 100"},                             // no session
		{"100 101 HELD 100 800", "199 200 HOLD 100 0"},   // a value missing
	} {
		rec := Hold{Enter: never, LostAt: never}
		if _, _, err := awaitHold(context.Background(), reports(bad...), &rec, time.Second); err == nil {
			t.Errorf("reports %q were taken", bad)
		}
	}
}

// A frozen holder that was told to write and never reported may have sent
// its write: its outcome is unknown, for its acknowledgement node to decide
// and the fence to judge, not a write it never sent.
func TestFrozenHoldersUnreportedWriteIsJudgedByItsAck(t *testing.T) {
	rec := frozen(6, 0, 10, 400, 420, 100)
	rec.Outcome, rec.Write, rec.Exit = NoWrite, never, never
	awaitWrote(context.Background(), reports("400 401 LOST"), &rec, time.Second)
	if rec.Outcome != Unknown || rec.LostAt != 401*ms {
		t.Fatalf("an unreported write: %s; want unknown, lost at 401ms", rec.String())
	}
	rec.Exit = 450 * ms
	newer := write(0, 0, 200, 250, 101)
	holds := []Hold{newer, rec}
	v := check(holds, finalOf([]Hold{newer, {Client: 6, Token: 100, Outcome: Accepted}}), 0, 0, false)
	if v.StaleAccepted != 1 || violationsWith(v, "write:") != 0 {
		t.Errorf("StaleAccepted = %d, violations %q; want its stale write counted, and no write it never sent", v.StaleAccepted, v.Violations)
	}
}

// A contender stopped for less than the session the server granted it
// cannot have lost its session while it slept: its hold stays clean
// through the freeze, and a worker let in meanwhile overlaps it. Stopped
// for longer, it is frozen, its clean window ending when it froze.
func TestShortFreezeLeavesTheHoldClean(t *testing.T) {
	for _, tc := range []struct {
		name     string
		session  time.Duration
		frozen   bool
		overlaps int
	}{
		{"past the session", 500 * ms, true, 0},
		{"within the session", 800 * ms, false, 1},
	} {
		rec := Hold{Client: 6, Mode: Exclusive, Enter: 100 * ms, Exit: 950 * ms, Write: 950 * ms, LostAt: 940 * ms,
			Token: 100, FrozenAt: 300 * ms, ThawedAt: 900 * ms, Outcome: Conflict}
		frozenPast(&rec, tc.session)
		worker := write(0, 0, 400, 500, 101) // while the contender slept
		holds := []Hold{rec, worker}
		v := check(holds, finalOf(holds), 0, 0, false)
		if rec.Frozen != tc.frozen || v.Overlaps != tc.overlaps {
			t.Errorf("%s: frozen %t, overlaps %d (%q); want %t, %d", tc.name, rec.Frozen, v.Overlaps, v.Violations, tc.frozen, tc.overlaps)
		}
	}
}

// A contender that took the lock and never reported its reads may still
// hold: its hold ends when its process is gone, not when the campaign
// stopped waiting for the report. The contender here is a script that
// reports HELD, waits for its standard input to close and holds 300 ms
// more.
func TestSilentHolderHoldsUntilItsProcessEnds(t *testing.T) {
	script := filepath.Join(t.TempDir(), "contender")
	body := "#!/bin/sh\necho \"$(date +%s%N) HELD 7 100\"\ncat >/dev/null\nsleep 0.3\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	const session = 100 * ms
	h := &recorder{}
	cs := &contenders{bin: script, paths: newPaths(MutexLock), session: session, firstID: 6, history: h, clock: newClock(), kind: MutexLock}
	f := &Fault{N: 1, Kind: PauseClientProcess, Hold: 2 * session}
	if err := cs.freeze(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	holds := h.sortedHolds()
	waited := cs.acquireWait() + 4*session // freezeHolder's bound on the report
	if len(holds) != 1 {
		t.Fatalf("%d holds (%s); want the contender's", len(holds), f.Note)
	}
	if r := holds[0]; r.Token != 7 || r.Frozen || r.Exit < r.Enter+waited+300*ms {
		t.Errorf("hold %s; want token 7, unfrozen, until at least %v after it began", r.String(), waited+300*ms)
	}
}
