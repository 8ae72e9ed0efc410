package campaign

import (
	"testing"
	"time"
)

// lease is a semaphore hold from enter to exit (ms) that never saw Lost.
func lease(client, seq int, enter, exit int64) Hold {
	return Hold{Client: client, Seq: seq, Mode: Leased, Enter: time.Duration(enter) * ms, Write: never, Exit: time.Duration(exit) * ms, LostAt: never}
}

func TestCheckLeasesFlagsOneCleanLeaseTooMany(t *testing.T) {
	holds := []Hold{lease(0, 0, 0, 100), lease(1, 0, 10, 100), lease(2, 0, 20, 100)}
	v := checkLeases(holds, endState{}, 3, 0, 2)
	if v.Overlaps != 1 || violationsWith(v, "overlap:") != 1 {
		t.Fatalf("three clean leases at once under maxLeases 2: Overlaps = %d, violations %q; want 1", v.Overlaps, v.Violations)
	}
}

func TestCheckLeasesIgnoresAHolderThatHadSeenLost(t *testing.T) {
	lost := lease(2, 0, 20, 100)
	lost.LostAt = 20 * ms // saw Lost as it entered: never clean
	late := lease(0, 1, 50, 150)
	earlyLost := lease(1, 0, 10, 200)
	earlyLost.LostAt, earlyLost.LostAtExit = 40*ms, true // saw Lost before late entered
	holds := []Hold{lease(0, 0, 0, 50), earlyLost, lost, late, lease(2, 1, 60, 120), lease(1, 1, 200, 210)}
	v := checkLeases(holds, endState{}, 3, 0, 2)
	if v.Overlaps != 0 || !v.OK() {
		t.Fatalf("extra holders had seen Lost, yet the history was judged %+v", v)
	}
}

func TestCheckLeasesAllowsBackToBackLeases(t *testing.T) {
	holds := []Hold{lease(0, 0, 0, 50), lease(1, 0, 0, 50), lease(2, 0, 50, 100)}
	if v := checkLeases(holds, endState{}, 3, 0, 2); !v.OK() {
		t.Fatalf("a lease entered as another ended was flagged: %q", v.Violations)
	}
}

func TestCheckLeasesCatchesOrphansAndMissingProgress(t *testing.T) {
	stale := lease(1, 1, 40, 50)
	stale.LostAt, stale.LostAtExit = 45*ms, true // a hold that saw Lost is no progress
	holds := []Hold{lease(0, 0, 0, 10), lease(1, 0, 10, 20), lease(0, 1, 30, 40), stale}
	f := endState{Orphans: []string{"/campaign/semaphore/lock/leases/_c_x-lease-0000000001"}}
	v := checkLeases(holds, f, 2, 25*ms, 1)
	if v.Orphans != 1 || violationsWith(v, "orphans:") != 1 {
		t.Errorf("an orphan lease node was not reported: %+v", v)
	}
	if violationsWith(v, "progress: client 1 ") != 1 || violationsWith(v, "progress: client 0 ") != 0 {
		t.Errorf("want exactly client 1 reported without progress: %q", v.Violations)
	}
}
