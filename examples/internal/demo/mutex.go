package demo

import (
	"context"
	"io"
	"slices"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// Mutex shows that InterProcessMutex is fair: workers, each with a client of
// its own, line up for one lock and get it one at a time in the order they
// arrived. It fails with ErrInvariant if two workers ever held the lock at
// once or the order of acquisition differs from the order of arrival.
func Mutex(ctx context.Context, connect string, out io.Writer, cfg ContentionConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "mutex")
	defer st.close()
	p := st.p
	p.title("mutex: %d workers, each with its own client, contend for one InterProcessMutex (fair)", cfg.Workers)

	res, err := contend(ctx, st, cfg, locks.StandardLockInternalsDriver{}, "/locks/orders")
	if err != nil {
		return err
	}
	p.say("arrival order:     %s", orderString(res.arrival))
	p.say("acquisition order: %s", orderString(res.acquired))
	return checkFair(res, cfg.Workers).conclude(p, "one holder at a time, and the lock went to the workers in the order they arrived")
}

// checkFair checks that every worker held the lock once, alone, in the
// order of arrival.
func checkFair(res *contention, workers int) *verdict {
	v := checkExclusive(res, workers)
	v.expect(slices.Equal(res.arrival, res.acquired),
		"acquisition order %s differs from arrival order %s", orderString(res.acquired), orderString(res.arrival))
	return v
}

// checkExclusive checks that every one of workers held the lock exactly
// once and never together with another.
func checkExclusive(res *contention, workers int) *verdict {
	v := &verdict{}
	st := res.sec.stats()
	v.expect(len(st.violations) == 0, "mutual exclusion broken: %v", st.violations)
	v.expect(st.maxInside <= 1, "%d workers held the lock at once", st.maxInside)
	v.expect(st.entries == workers, "%d acquisitions for %d workers", st.entries, workers)
	seen := make(map[int]bool)
	for _, n := range res.acquired {
		v.expect(!seen[n], "%s acquired twice", workerName(n))
		seen[n] = true
	}
	v.expect(len(seen) == workers, "%d of %d workers acquired the lock", len(seen), workers)
	return v
}
