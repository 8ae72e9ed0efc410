// Package clock is the time this module's clients and recipes wait on for
// their own timers (a delay queue's due times, a pause between retries, the
// simulated session expiry), so that a test can move that time on instead
// of waiting for it. Timers the server keeps (session timeouts, TTLs) are
// not ours to move and do not use it.
package clock

import "time"

// Clock tells the time and makes timers, as package time does.
type Clock interface {
	Now() time.Time
	Since(t time.Time) time.Duration
	Until(t time.Time) time.Duration
	// After returns a channel that receives the time once d has passed.
	After(d time.Duration) <-chan time.Time
	// NewTimer returns a timer that fires once d has passed.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine once d has passed, unless the
	// timer it returns is stopped first; that timer's C is nil.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a *time.Timer of a Clock.
type Timer interface {
	// C receives the time when the timer fires.
	C() <-chan time.Time
	// Stop stops the timer and reports whether it was running.
	Stop() bool
	// Reset makes the timer fire d from now and reports whether it was
	// running.
	Reset(d time.Duration) bool
}

// Real is the wall clock of package time.
type Real struct{}

func (Real) Now() time.Time                         { return time.Now() }
func (Real) Since(t time.Time) time.Duration        { return time.Since(t) }
func (Real) Until(t time.Time) time.Duration        { return time.Until(t) }
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (Real) NewTimer(d time.Duration) Timer         { return realTimer{time.NewTimer(d)} }
func (Real) AfterFunc(d time.Duration, f func()) Timer {
	return realTimer{time.AfterFunc(d, f)}
}

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

// Or returns c, or Real when c is nil: a config's zero value runs on the
// wall clock.
func Or(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}
