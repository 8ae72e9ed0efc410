package demo

import (
	"context"
	"io"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// Unfair runs the mutex demo with UnfairLockInternalsDriver: the lock goes to
// the waiter with the lowest random suffix rather than the longest waiting
// one, so the order is shuffled, and still only one worker holds it at a
// time. It fails with ErrInvariant if two workers ever held the lock at once
// or a worker did not get it exactly once. A shuffle that happens to keep the
// arrival order is reported, not failed: it is one of the possible orders.
func Unfair(ctx context.Context, connect string, out io.Writer, cfg ContentionConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "unfair")
	defer st.close()
	p := st.p
	p.title("unfair: %d workers contend for one InterProcessMutex with UnfairLockInternalsDriver", cfg.Workers)
	p.say("each contender's node ends in a random number; the lowest waiting number goes next")

	res, err := contend(ctx, st, cfg, locks.UnfairLockInternalsDriver{}, "/locks/orders")
	if err != nil {
		return err
	}
	if len(res.queue) > 0 && res.queue[0] != 1 {
		p.say("%s's node sorts first, yet it waited until worker 1 released: the holder also owns", workerName(res.queue[0]))
		p.say("the lock's \"holder\" node, so a lower newcomer cannot take a lock that is held")
	}
	p.say("arrival order:     %s", orderString(res.arrival))
	p.say("acquisition order: %s", orderString(res.acquired))
	moved := 0
	for i := range min(len(res.arrival), len(res.acquired)) {
		if res.arrival[i] != res.acquired[i] {
			moved++
		}
	}
	if moved == 0 {
		p.say("this time the random suffixes happened to follow the arrival order; run it again to see a shuffle")
	} else {
		p.say("%d of %d workers got the lock out of arrival order", moved, cfg.Workers)
	}
	return checkExclusive(res, cfg.Workers).conclude(p, "the order was shuffled, yet never two holders at once")
}
