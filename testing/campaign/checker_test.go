package campaign

import (
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// write is an exclusive hold from enter to exit (ms) that applied a write
// with token, unless the caller changes it.
func write(client, seq int, enter, exit time.Duration, token int64) Hold {
	return Hold{Client: client, Seq: seq, Mode: Exclusive, Enter: enter * ms, Write: (enter + 1) * ms, Exit: exit * ms,
		LostAt: never, Token: token, Outcome: Accepted}
}

func read(client, seq int, enter, exit time.Duration) Hold {
	return Hold{Client: client, Seq: seq, Mode: Shared, Enter: enter * ms, Write: never, Exit: exit * ms, LostAt: never}
}

// finalOf is the state a correct ensemble would end in after holds, taking
// the Accepted ones as applied in order.
func finalOf(holds []Hold) endState {
	var f endState
	for _, h := range holds {
		if h.Outcome == Accepted {
			f.Counter++
			f.Fence = h.Token
			f.Acks = append(f.Acks, ack{Client: h.Client, Seq: h.Seq, Token: h.Token, Value: f.Counter})
		}
	}
	return f
}

func violationsWith(v Verdict, prefix string) int {
	n := 0
	for _, s := range v.Violations {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}

func TestCheckPassesACorrectHistory(t *testing.T) {
	holds := []Hold{
		write(0, 0, 0, 10, 100),
		write(1, 0, 10, 20, 101),
		read(0, 1, 20, 30),
		read(1, 1, 25, 35), // readers may overlap each other
		write(0, 2, 40, 50, 105),
		write(1, 2, 50, 60, 107),
		read(0, 3, 60, 70),
		read(1, 3, 61, 71),
	}
	v := check(holds, finalOf(holds), 2, 40*ms, true)
	if !v.OK() || v.Accepted != 4 || v.Acquisitions != 8 || v.Overlaps != 0 {
		t.Fatalf("a correct history was judged %+v", v)
	}
}

func TestCheckCountsOverlapsOfCleanWindowsOnly(t *testing.T) {
	a := write(0, 0, 0, 100, 100)
	b := write(1, 0, 50, 150, 101) // overlaps a, neither saw Lost
	c := write(2, 0, 200, 300, 102)
	c.LostAt = 210 * ms // saw Lost before d entered: not an overlap
	d := write(3, 0, 250, 350, 103)
	r := read(4, 0, 320, 400) // overlaps d: a reader beside a writer
	holds := []Hold{a, b, c, d, r}
	v := check(holds, finalOf(holds), 5, 0, false)
	if v.Overlaps != 2 || violationsWith(v, "overlap:") != 2 {
		t.Fatalf("Overlaps = %d, violations %q; want 2 (a/b and d/r)", v.Overlaps, v.Violations)
	}
}

func TestCheckCatchesFencingAndCounterViolations(t *testing.T) {
	holds := []Hold{write(0, 0, 0, 10, 200), write(1, 0, 10, 20, 150)}
	f := finalOf(holds)
	v := check(holds, f, 2, 0, false)
	if violationsWith(v, "fencing:") == 0 {
		t.Errorf("a token that went down was not reported: %q", v.Violations)
	}

	holds = []Hold{write(0, 0, 0, 10, 100), write(1, 0, 10, 20, 101)}
	f = finalOf(holds)
	f.Counter = 1 // an increment lost
	v = check(holds, f, 2, 0, false)
	if violationsWith(v, "counter:") != 1 {
		t.Errorf("a final counter below the applied writes was not reported: %q", v.Violations)
	}
}

func TestCheckResolvesWritesFromAcknowledgements(t *testing.T) {
	unknown := write(0, 0, 0, 10, 100)
	unknown.Outcome = Unknown // its reply was lost, but it applied
	stale := write(1, 0, 10, 20, 90)
	stale.Outcome = Stale
	conflict := write(1, 1, 20, 30, 95)
	conflict.Outcome = Conflict
	lostWrite := write(0, 1, 30, 40, 120) // accepted, yet no acknowledgement
	holds := []Hold{unknown, stale, conflict, lostWrite}
	f := endState{Counter: 1, Fence: 100, Acks: []ack{{Client: 0, Seq: 0, Token: 100, Value: 1}}}
	v := check(holds, f, 2, 0, false)
	if !holds[0].Applied || holds[3].Applied {
		t.Errorf("Applied = %t, %t; want the unknown write applied and the lost one not", holds[0].Applied, holds[3].Applied)
	}
	if v.Accepted != 1 || v.RejectedStale != 2 {
		t.Errorf("Accepted = %d, RejectedStale = %d; want 1 and 2", v.Accepted, v.RejectedStale)
	}
	if violationsWith(v, "write:") != 1 {
		t.Errorf("an accepted write without acknowledgement was not reported once: %q", v.Violations)
	}
}

func TestCheckCatchesOrphansAndMissingProgress(t *testing.T) {
	holds := []Hold{write(0, 0, 0, 10, 100), write(1, 0, 10, 20, 101), write(0, 1, 30, 40, 102), read(0, 2, 40, 50)}
	f := finalOf(holds)
	f.Orphans = []string{"_c_x-lock-0000000001"}
	v := check(holds, f, 2, 25*ms, true)
	if v.Orphans != 1 || violationsWith(v, "orphans:") != 1 {
		t.Errorf("an orphan was not reported: %+v", v)
	}
	if violationsWith(v, "progress: client 1 ") != 1 || violationsWith(v, "progress: client 0 ") != 0 {
		t.Errorf("want exactly client 1 reported without progress: %q", v.Violations)
	}
}
