package main

import (
	"context"
	"math/rand/v2"
	"path"
	"time"

	"github.com/zkcurator/zkcurator/protection"
)

// pause sleeps a random time below upTo (not at all when upTo is not
// positive), or fails with ctx's error when ctx ends first.
func pause(ctx context.Context, upTo time.Duration) error {
	if upTo <= 0 {
		return nil
	}
	return sleep(ctx, rand.N(upTo))
}

// sleep waits for d, or fails with ctx's error when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// shortNode drops the path and the protection prefix of a lock node:
// "/locks/x/_c_<uuid>-lock-0000000003" becomes "lock-0000000003".
func shortNode(p string) string {
	return protection.Strip(path.Base(p))
}
