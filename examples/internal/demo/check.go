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

// verdict collects a demo's broken promises.
type verdict struct {
	mu       sync.Mutex
	failures []string
}

// expect records a failure described by format when ok is false.
func (v *verdict) expect(ok bool, format string, args ...any) {
	if ok {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.failures = append(v.failures, fmt.Sprintf(format, args...))
}

// err returns nil when nothing failed, else an ErrInvariant naming every failure.
func (v *verdict) err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.failures) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInvariant, strings.Join(v.failures, "; "))
}

// conclude prints the verdict's outcome and returns its error.
func (v *verdict) conclude(p *printer, promise string) error {
	if err := v.err(); err != nil {
		p.say("FAILED: %v", err)
		return err
	}
	p.say("OK: %s", promise)
	return nil
}

// section records who is inside a critical section: exclusive holders
// (writers, mutex holders) and shared ones (readers), and counts every entry
// that broke exclusion.
type section struct {
	mu         sync.Mutex
	exclusive  int
	shared     int
	maxInside  int
	maxShared  int
	entries    int
	violations []string
}

// enter records that who entered, exclusively or not, and returns its exit.
func (s *section) enter(who string, exclusive bool) (leave func()) {
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

// sectionStats is what a section has recorded so far.
type sectionStats struct {
	inside     int      // holders inside now
	maxInside  int      // the most holders inside at once
	maxShared  int      // the most shared holders inside at once
	entries    int      // entries so far
	violations []string // entries that broke exclusion
}

// stats returns what the section has recorded so far.
func (s *section) stats() sectionStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sectionStats{
		inside:     s.exclusive + s.shared,
		maxInside:  s.maxInside,
		maxShared:  s.maxShared,
		entries:    s.entries,
		violations: append([]string(nil), s.violations...),
	}
}

// pollEvery is how often waitUntil asks its condition again.
const pollEvery = 10 * time.Millisecond

// waitUntil asks cond every few milliseconds until it reports true, and fails
// with an error naming what when it returns an error, ctx ends or timeout
// passes.
func waitUntil(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
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
