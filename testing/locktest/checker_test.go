package locktest

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCheckerCountsOverlaps(t *testing.T) {
	var c Checker
	exitA := c.Enter()
	exitB := c.Enter() // overlaps A
	exitB()
	exitA()
	exitA() // a second exit of the same entry changes nothing
	r1 := c.EnterShared()
	r2 := c.EnterShared()
	if got := c.MaxShared(); got != 2 {
		t.Errorf("MaxShared = %d, want 2", got)
	}
	w := c.Enter() // overlaps the readers
	w()
	r1()
	r2()
	exitC := c.Enter()
	exitC()
	if got := c.Violations(); got != 2 {
		t.Errorf("Violations = %d, want 2", got)
	}
	if got := c.Entries(); got != 6 {
		t.Errorf("Entries = %d, want 6", got)
	}
}
