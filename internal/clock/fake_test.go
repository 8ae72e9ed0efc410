package clock_test

import (
	"slices"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/internal/clock"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func fired(c <-chan time.Time) (time.Time, bool) {
	select {
	case at := <-c:
		return at, true
	default:
		return time.Time{}, false
	}
}

// A fake timer fires when Advance reaches its time, not before, with the
// fake time; Now, Since and Until read the fake time.
func TestFakeTimerFiresWhenAdvancedToItsTime(t *testing.T) {
	f := clock.NewFake(t0)
	tm := f.NewTimer(time.Second)
	after := f.After(2 * time.Second)
	f.Advance(999 * time.Millisecond)
	if _, ok := fired(tm.C()); ok {
		t.Fatal("a 1s timer fired after 999ms")
	}
	f.Advance(time.Millisecond)
	if at, ok := fired(tm.C()); !ok || !at.Equal(t0.Add(time.Second)) {
		t.Fatalf("a 1s timer after 1s: fired %v at %v; want at %v", ok, at, t0.Add(time.Second))
	}
	if _, ok := fired(after); ok {
		t.Fatal("After(2s) fired after 1s")
	}
	f.Advance(time.Hour)
	if _, ok := fired(after); !ok {
		t.Fatal("After(2s) did not fire after an hour")
	}
	if got := f.Now(); !got.Equal(t0.Add(time.Hour + time.Second)) {
		t.Fatalf("Now() = %v; want %v", got, t0.Add(time.Hour+time.Second))
	}
	if got := f.Since(t0); got != time.Hour+time.Second {
		t.Fatalf("Since = %v", got)
	}
	if got := f.Until(t0); got != -(time.Hour + time.Second) {
		t.Fatalf("Until = %v", got)
	}
}

// Stop and Reset report whether the timer ran, as time.Timer's do; a
// stopped timer never fires and is not among Timers; a timer of a duration
// that is not positive fires at once.
func TestFakeTimerStopResetAndTimers(t *testing.T) {
	f := clock.NewFake(t0)
	a, b := f.NewTimer(3*time.Second), f.NewTimer(time.Second)
	if got, want := f.Timers(), []time.Time{t0.Add(time.Second), t0.Add(3 * time.Second)}; !slices.Equal(got, want) {
		t.Fatalf("Timers() = %v; want %v", got, want)
	}
	if !a.Stop() || a.Stop() {
		t.Fatal("Stop of a running timer, then of a stopped one: want true, false")
	}
	f.Advance(time.Hour)
	if _, ok := fired(a.C()); ok {
		t.Fatal("a stopped timer fired")
	}
	if _, ok := fired(b.C()); !ok {
		t.Fatal("a running timer did not fire")
	}
	if b.Reset(time.Minute) {
		t.Fatal("Reset of a fired timer reported it running")
	}
	if !b.Reset(2 * time.Minute) {
		t.Fatal("Reset of a running timer reported it stopped")
	}
	if got := f.Timers(); len(got) != 1 || !got[0].Equal(f.Now().Add(2*time.Minute)) {
		t.Fatalf("Timers() = %v after Reset(2m)", got)
	}
	b.Stop()
	if _, ok := fired(f.NewTimer(0).C()); !ok {
		t.Fatal("a timer of 0 did not fire at once")
	}
	if got := f.Timers(); len(got) != 0 {
		t.Fatalf("Timers() = %v; want none running", got)
	}
	if n := f.Armed(); n != 5 {
		t.Fatalf("Armed() = %d after two timers, two resets and a timer of 0; want 5", n)
	}
}

// The real clock's timers fire on the wall clock.
func TestRealTimerFires(t *testing.T) {
	c := clock.Or(nil)
	began := c.Now()
	tm := c.NewTimer(time.Millisecond)
	select {
	case <-tm.C():
	case <-time.After(10 * time.Second):
		t.Fatal("a 1ms timer did not fire in 10s")
	}
	if c.Since(began) < time.Millisecond || c.Until(began) > 0 {
		t.Fatalf("Since/Until disagree with a fired 1ms timer: %v, %v", c.Since(began), c.Until(began))
	}
	if tm.Stop() {
		t.Fatal("Stop of a fired timer reported it running")
	}
	select {
	case <-c.After(time.Millisecond):
	case <-time.After(10 * time.Second):
		t.Fatal("After(1ms) did not fire in 10s")
	}
}

// An AfterFunc timer calls its function once Advance reaches its time, and
// never once stopped.
func TestFakeAfterFunc(t *testing.T) {
	f := clock.NewFake(t0)
	called := make(chan struct{}, 2)
	tm := f.AfterFunc(time.Second, func() { called <- struct{}{} })
	stopped := f.AfterFunc(time.Second, func() { called <- struct{}{} })
	if tm.C() != nil {
		t.Fatal("an AfterFunc timer has a channel")
	}
	f.Advance(999 * time.Millisecond)
	if !stopped.Stop() {
		t.Fatal("Stop of a running AfterFunc timer reported it stopped")
	}
	select {
	case <-called:
		t.Fatal("an AfterFunc timer fired before its time")
	default:
	}
	f.Advance(time.Millisecond)
	select {
	case <-called:
	case <-time.After(10 * time.Second):
		t.Fatal("an AfterFunc timer did not call its function at its time")
	}
	if len(f.Timers()) != 0 {
		t.Fatalf("Timers() = %v after every timer fired or stopped", f.Timers())
	}
	select {
	case <-called:
		t.Fatal("a stopped AfterFunc timer called its function")
	default:
	}
}
