package campaign

import (
	"strings"
	"testing"
	"time"
)

// pass is client's record of round r: Enter called at enter and returned at
// entered, Leave called at leave and returned at left (milliseconds; -1:
// never, a call that failed with err).
func pass(client, r int, enter, entered, leave, left int, err string, lost bool) Hold {
	at := func(v int) time.Duration {
		if v < 0 {
			return never
		}
		return time.Duration(v) * ms
	}
	b := &BarrierRound{EnterAt: at(enter), Entered: at(entered), LeaveAt: at(leave), Left: at(left)}
	h := Hold{Client: client, Seq: r, Mode: Increment, Target: targetBarrier, Enter: at(enter), Write: never, LostAt: never, Outcome: Accepted, Barrier: b}
	switch {
	case err != "" && entered < 0:
		b.EnterErr, b.EnterLost, h.Outcome = err, lost, Unknown
	case err != "":
		b.LeaveErr, b.LeaveLost, h.Outcome = err, lost, Unknown
	}
	return h
}

func TestCheckBarrierAcceptsRoundsWithExcusedFailures(t *testing.T) {
	holds := []Hold{
		// Round 0: clean.
		pass(0, 0, 0, 5, 6, 9, "", false), pass(1, 0, 2, 5, 7, 9, "", false),
		// Round 1: c1's Enter failed after its node counted; c0's Leave
		// returned before c1 did anything more.
		pass(0, 1, 10, 15, 16, 17, "", false), pass(1, 1, 11, -1, -1, -1, "timeout", false),
		// Round 2: c1 passed, lost its session and failed Leave with
		// ErrMembershipLost after c0 left: excused.
		pass(0, 2, 20, 25, 26, 27, "", false), pass(1, 2, 21, 25, 30, -1, "lost", true),
		// Round 3, after the last fault: clean.
		pass(0, 3, 40, 45, 46, 49, "", false), pass(1, 3, 42, 45, 47, 49, "", false),
	}
	final := endState{Orphans: []string{"/campaign/barrier/lock/r000001/ready"}}
	v := checkBarrier(holds, final, 2, 35*ms)
	if !v.OK() {
		t.Fatalf("a history that kept every promise was judged: %v", v.Violations)
	}
	want := "rounds=4 clean_rounds=2 failed_enters=1 lost_enters=0 failed_leaves=1 lost_leaves=1 early_enters=0 early_leaves=0 excused_leaves=1 ready_left=1"
	if got := strings.Join(v.Extra, " "); got != want {
		t.Fatalf("tally %q, want %q", got, want)
	}
}

func TestCheckBarrierFlagsEarlyPassesAndOrphans(t *testing.T) {
	for _, tc := range []struct {
		name  string
		holds []Hold
		final endState
		want  string
	}{
		{"enter before the last member called it",
			[]Hold{pass(0, 0, 0, 3, 6, 9, "", false), pass(1, 0, 4, 5, 7, 9, "", false)}, endState{}, "early enter: round 0: c0"},
		{"enter before a failed member called it",
			[]Hold{pass(0, 0, 0, 3, 6, 9, "", false), pass(1, 0, 4, -1, -1, -1, "lost", true)}, endState{}, "early enter: round 0: c0"},
		{"leave before another called it",
			[]Hold{pass(0, 0, 0, 5, 6, 7, "", false), pass(1, 0, 2, 5, 8, 9, "", false)}, endState{}, "early leave: round 0: c0"},
		{"leave before a member that failed otherwise called it",
			[]Hold{pass(0, 0, 0, 5, 6, 7, "", false), pass(1, 0, 2, 5, 8, -1, "timeout", false)}, endState{}, "early leave: round 0: c0"},
		{"a member node outlived the clients",
			[]Hold{pass(0, 0, 0, 5, 6, 9, "", false), pass(1, 0, 2, 5, 7, 9, "", false)},
			endState{Orphans: []string{"/campaign/barrier/lock/r000000/0b6e"}}, "orphans: /campaign/barrier/lock/r000000/0b6e"},
		{"a clean round left its ready node",
			[]Hold{pass(0, 0, 0, 5, 6, 9, "", false), pass(1, 0, 2, 5, 7, 9, "", false)},
			endState{Orphans: []string{"/campaign/barrier/lock/r000000/ready"}}, "orphans: /campaign/barrier/lock/r000000/ready"},
		{"a member missed a round",
			[]Hold{pass(0, 0, 0, 5, 6, 9, "", false)}, endState{}, "round 0: 1 members went through it"},
	} {
		v := checkBarrier(tc.holds, tc.final, 2, 0)
		if !strings.Contains(strings.Join(v.Violations, "\n"), tc.want) {
			t.Errorf("%s: violations %q, want one with %q", tc.name, v.Violations, tc.want)
		}
	}
	if v := checkBarrier([]Hold{pass(0, 0, 0, 5, 6, 9, "", false), pass(1, 0, 2, 5, 7, -1, "lost", true)}, endState{}, 2, 0); !strings.Contains(strings.Join(v.Violations, "\n"), "progress:") {
		t.Errorf("no clean round after the last fault was not reported: %q", v.Violations)
	}
}
