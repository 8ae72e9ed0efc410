package demo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ErrInvariant is matched (errors.Is) by the error a demo returns when the
// promise it demonstrates did not hold; other errors mean it could not run.
var ErrInvariant = errors.New("invariant violated")

// Verdict collects a demo's broken promises; it is safe for concurrent use.
type Verdict struct {
	mu       sync.Mutex
	failures []string
}

// Expect records a failure described by format when ok is false.
func (v *Verdict) Expect(ok bool, format string, args ...any) {
	if ok {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.failures = append(v.failures, fmt.Sprintf(format, args...))
}

// Err returns nil when nothing failed, else an ErrInvariant naming every failure.
func (v *Verdict) Err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.failures) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInvariant, strings.Join(v.failures, "; "))
}

// Conclude prints the verdict's outcome, "OK: " and the promise kept or
// "FAILED: " and what broke it, and returns Err.
func (v *Verdict) Conclude(p *Printer, promise string) error {
	if err := v.Err(); err != nil {
		p.Say("FAILED: %v", err)
		return err
	}
	p.Say("OK: %s", promise)
	return nil
}

// Section records who is inside a critical section: exclusive holders
// (writers, mutex holders) and shared ones (readers), and counts every entry
// that broke exclusion.
type Section struct {
	mu         sync.Mutex
	exclusive  int
	shared     int
	maxInside  int
	maxShared  int
	entries    int
	violations []string
}

// Enter records that who entered, exclusively or not, and returns its exit;
// calling the exit again does nothing.
func (s *Section) Enter(who string, exclusive bool) (leave func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries++
	if s.exclusive > 0 || (exclusive && s.shared > 0) {
		s.violations = append(s.violations, fmt.Sprintf("%s entered while %d exclusive and %d shared holders were inside", who, s.exclusive, s.shared))
	}
	if exclusive {
		s.exclusive++
	} else {
		s.shared++
		s.maxShared = max(s.maxShared, s.shared)
	}
	s.maxInside = max(s.maxInside, s.exclusive+s.shared)
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if exclusive {
				s.exclusive--
			} else {
				s.shared--
			}
		})
	}
}

// SectionStats is what a Section has recorded so far.
type SectionStats struct {
	Inside     int      // holders inside now
	MaxInside  int      // the most holders inside at once
	MaxShared  int      // the most shared holders inside at once
	Entries    int      // entries so far
	Violations []string // entries that broke exclusion
}

// Stats returns what the section has recorded so far.
func (s *Section) Stats() SectionStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return SectionStats{
		Inside:     s.exclusive + s.shared,
		MaxInside:  s.maxInside,
		MaxShared:  s.maxShared,
		Entries:    s.entries,
		Violations: append([]string(nil), s.violations...),
	}
}

// pollEvery is how often WaitUntil asks its condition again.
const pollEvery = 10 * time.Millisecond

// WaitUntil asks cond every few milliseconds until it reports true, and fails
// with an error naming what when it returns an error, ctx ends or timeout
// passes.
func WaitUntil(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		ok, err := cond(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			return fmt.Errorf("waiting until %s: %w", what, err)
		case ok:
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting until %s: gave up after %v: %w", what, timeout, ctx.Err())
		case <-tick.C:
		}
	}
}
