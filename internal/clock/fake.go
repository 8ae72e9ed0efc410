package clock

import (
	"slices"
	"sync"
	"time"
)

// Fake is a Clock whose time moves only when Advance moves it, for tests.
// Its timers fire when Advance reaches their time, never on their own. It
// is safe for concurrent use.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer // running ones
	armed  int
}

// NewFake returns a Fake that reads now until it is advanced.
func NewFake(now time.Time) *Fake { return &Fake{now: now} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Since returns the fake time since t.
func (f *Fake) Since(t time.Time) time.Duration { return f.Now().Sub(t) }

// Until returns the fake time until t.
func (f *Fake) Until(t time.Time) time.Duration { return t.Sub(f.Now()) }

// After returns the channel of a new timer.
func (f *Fake) After(d time.Duration) <-chan time.Time { return f.NewTimer(d).C() }

// NewTimer returns a timer that fires once the fake time is d later than
// now; at once when d is not positive.
func (f *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{f: f, c: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

// AfterFunc returns a timer that calls f in its own goroutine once the
// fake time is d later than now.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	t := &fakeTimer{f: f, fn: fn}
	t.Reset(d)
	return t
}

// Advance moves the fake time on by d and fires, in the order of their
// times, the timers whose time has come.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	slices.SortStableFunc(f.timers, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for len(f.timers) > 0 && !f.timers[0].at.After(f.now) {
		f.fireLocked(f.timers[0])
	}
}

// Timers returns the times at which the running timers will fire, earliest
// first: a test waits for the code under test to arm the timer it is about
// to advance past.
func (f *Fake) Timers() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	at := make([]time.Time, 0, len(f.timers))
	for _, t := range f.timers {
		at = append(at, t.at)
	}
	slices.SortFunc(at, time.Time.Compare)
	return at
}

// Armed counts the timers armed so far (by NewTimer, After and Reset): a
// test that makes the code under test look again knows it has looked once
// the count has grown.
func (f *Fake) Armed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.armed
}

// fireLocked stops t and sends the time on its channel, as a time.Timer
// would (a value not received yet stays), or starts its function.
func (f *Fake) fireLocked(t *fakeTimer) {
	f.stopLocked(t)
	if t.fn != nil {
		go t.fn()
		return
	}
	select {
	case t.c <- f.now:
	default:
	}
}

// stopLocked removes t from the running timers and reports whether it ran.
func (f *Fake) stopLocked(t *fakeTimer) bool {
	i := slices.Index(f.timers, t)
	if i < 0 {
		return false
	}
	f.timers = slices.Delete(f.timers, i, i+1)
	return true
}

type fakeTimer struct {
	f  *Fake
	c  chan time.Time // nil for AfterFunc
	fn func()         // AfterFunc's
	at time.Time      // under f.mu
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	return t.f.stopLocked(t)
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	f := t.f
	f.mu.Lock()
	defer f.mu.Unlock()
	was := f.stopLocked(t)
	t.at = f.now.Add(d)
	f.timers = append(f.timers, t)
	f.armed++
	if d <= 0 {
		f.fireLocked(t)
	}
	return was
}
