package main

import (
	"context"
	"errors"
	"path"
	"time"

	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// arrivalTimeout bounds how long a contender's node may take to show up in
// line.
const arrivalTimeout = 10 * time.Second

// handoffTimeout bounds how long a waiter may take to get a released lock.
const handoffTimeout = 10 * time.Second

// releaseAll undoes depth holds of m on the way out of a failed run.
func releaseAll(m *locks.InterProcessMutex, depth int) error {
	ctx, cancel := context.WithTimeout(context.Background(), handoffTimeout)
	defer cancel()
	var errs []error
	for range depth {
		errs = append(errs, m.Release(ctx))
	}
	return errors.Join(errs...)
}

// awaitAndRelease waits for an acquisition of m in flight (whose result
// arrives on done) and releases the lock if it was acquired, on the way out
// of a failed run.
func awaitAndRelease(m *locks.InterProcessMutex, done <-chan error) error {
	select {
	case err := <-done:
		if err != nil {
			return nil
		}
		return releaseAll(m, 1)
	case <-time.After(handoffTimeout):
		return errors.New("an acquisition did not end after its lock was released")
	}
}

// shortNode drops the path and the protection prefix of a lock node:
// "/locks/x/_c_<uuid>-lock-0000000003" becomes "lock-0000000003".
func shortNode(p string) string {
	return protection.Strip(path.Base(p))
}
