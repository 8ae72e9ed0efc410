// check.go holds how this program checks its promise at the end and
// reports a broken one as an error matching errInvariant, so that the
// program exits with status 1.

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// errInvariant is matched (errors.Is) by the error run returns when the
// promise it demonstrates did not hold; other errors mean it could not run.
var errInvariant = errors.New("invariant violated")

// verdict collects the run's broken promises; it is safe for concurrent use.
type verdict struct {
	mu       sync.Mutex
	failures []string
}

// Expect records a failure described by format when ok is false.
func (v *verdict) Expect(ok bool, format string, args ...any) {
	if ok {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.failures = append(v.failures, fmt.Sprintf(format, args...))
}

// Err returns nil when nothing failed, else an errInvariant naming every failure.
func (v *verdict) Err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.failures) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", errInvariant, strings.Join(v.failures, "; "))
}

// Conclude prints the verdict's outcome, "OK: " and the promise kept or
// "FAILED: " and what broke it, and returns Err.
func (v *verdict) Conclude(p *printer, promise string) error {
	if err := v.Err(); err != nil {
		p.Say("FAILED: %v", err)
		return err
	}
	p.Say("OK: %s", promise)
	return nil
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
