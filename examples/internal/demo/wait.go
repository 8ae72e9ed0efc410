package demo

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// HandoffTimeout bounds how long a waiter may take to get a released lock.
const HandoffTimeout = 10 * time.Second

// Sleep waits for d, or fails with ctx's error when ctx ends first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Pause sleeps a random time below upTo (not at all when upTo is not
// positive), or fails with ctx's error when ctx ends first.
func Pause(ctx context.Context, upTo time.Duration) error {
	if upTo <= 0 {
		return nil
	}
	return Sleep(ctx, rand.N(upTo))
}

// ReleaseAll undoes depth holds of m on the way out of a failed demo.
func ReleaseAll(m *locks.InterProcessMutex, depth int) error {
	ctx, cancel := context.WithTimeout(context.Background(), HandoffTimeout)
	defer cancel()
	var errs []error
	for range depth {
		errs = append(errs, m.Release(ctx))
	}
	return errors.Join(errs...)
}

// AwaitAndRelease waits for an acquisition of m in flight (whose result
// arrives on done) and releases the lock if it was acquired, on the way out
// of a failed demo.
func AwaitAndRelease(m *locks.InterProcessMutex, done <-chan error) error {
	select {
	case err := <-done:
		if err != nil {
			return nil
		}
		return ReleaseAll(m, 1)
	case <-time.After(HandoffTimeout):
		return errors.New("an acquisition did not end after its lock was released")
	}
}
