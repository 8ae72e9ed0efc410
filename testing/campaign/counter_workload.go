package campaign

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/recipes/shared"
	"github.com/zkcurator/zkcurator/retry"
)

// Counter targets: what an Increment hold incremented.
const (
	targetLong  = "long"  // a DistributedAtomicLong
	targetCount = "count" // a SharedCount, through TrySet
)

// counters are a worker's handles on the counter campaign's two values.
type counters struct {
	long  *atomic.DistributedAtomicLong
	count *shared.SharedCount
}

// newCounters builds the handles. Even clients update the long optimistically
// under atomic's default policy and never promote; odd ones make a single
// optimistic try and, on a conflict, promote to the lock at p.lock (a few
// tries under it, as optimistic writers still race them), so that the
// promoted lock's nodes live through the faults often, not only when ten
// optimistic tries run out.
func newCounters(id int, c *framework.Client, p paths, lockWait time.Duration) (*counters, error) {
	var opts []atomic.Option
	if id%2 == 1 {
		opts = append(opts, atomic.WithRetryPolicy(retry.NTimes{N: 0}),
			atomic.WithPromotedToLock(atomic.PromotedToLock{LockPath: p.lock, MaxLockTime: lockWait,
				RetryPolicy: retry.NTimes{N: 3, Sleep: 5 * time.Millisecond}}))
	}
	long, err := atomic.NewDistributedAtomicLong(c, p.long, opts...)
	if err != nil {
		return nil, err
	}
	count, err := shared.NewSharedCount(c, p.count, 0)
	if err != nil {
		return nil, err
	}
	return &counters{long: long, count: count}, nil
}

// runCounters is a worker's loop over the counters: it increments the long
// and the shared count in turn and records each increment's outcome as an
// Increment hold (Accepted: applied once; Unknown: may have applied; any
// other outcome: did not apply).
func (w *worker) runCounters(ctx context.Context) {
	defer w.counters.count.Close()
	for started := false; !started && ctx.Err() == nil; {
		sctx, cancel := context.WithTimeout(ctx, w.opTimeout)
		started = w.counters.count.Start(sctx) == nil
		cancel()
	}
	for seq := 0; seq < maxIterations && ctx.Err() == nil; seq++ {
		rec := Hold{Client: w.id, Seq: seq, Mode: Increment, Write: never, LostAt: never, Target: targetLong}
		if seq%2 == 1 {
			rec.Target = targetCount
		}
		w.holding.Store(true)
		rec.Enter = w.clock.now()
		opCtx, cancel := context.WithTimeout(ctx, w.opTimeout)
		if rec.Target == targetLong {
			w.incrementLong(opCtx, &rec)
		} else {
			w.incrementCount(opCtx, &rec)
		}
		cancel()
		rec.Exit = w.clock.now()
		w.holding.Store(false)
		w.history.add(rec)
		if rec.Outcome != Accepted {
			sleepCtx(ctx, 5*time.Millisecond)
		}
	}
}

func (w *worker) incrementLong(ctx context.Context, rec *Hold) {
	v, err := w.counters.long.Increment(ctx)
	rec.Promoted = v.Stats.PromotedLockTries > 0
	switch {
	case err == nil && v.Succeeded:
		rec.Outcome, rec.Counter, rec.Post = Accepted, v.PreValue, v.PostValue
	case err == nil:
		rec.Outcome = Conflict // the tries ran out: not applied
	case errors.Is(err, atomic.ErrOutcomeUnknown):
		rec.Outcome, rec.Err = Unknown, err.Error()
	default:
		rec.Outcome, rec.Err = NoWrite, err.Error()
	}
}

func (w *worker) incrementCount(ctx context.Context, rec *Hold) {
	v := w.counters.count.VersionedValue()
	ok, err := w.counters.count.TrySet(ctx, v.Value+1, v.Version)
	switch {
	case ok:
		rec.Outcome, rec.Counter, rec.Post = Accepted, int64(v.Value), int64(v.Value)+1
	case err == nil:
		rec.Outcome = Conflict // a stale version: not applied
	case errors.Is(err, shared.ErrOutcomeUnknown):
		rec.Outcome, rec.Err = Unknown, err.Error()
	default:
		rec.Outcome, rec.Err = NoWrite, err.Error()
	}
}

// counterValues reads the final values of the long and the shared count.
func counterValues(ctx context.Context, c *framework.Client, p paths) (long, count int64, err error) {
	data, _, err := c.GetData(ctx, p.long)
	switch {
	case err != nil:
		return 0, 0, fmt.Errorf("campaign: read %s: %w", p.long, err)
	case len(data) != 8:
		return 0, 0, fmt.Errorf("campaign: %s holds %d bytes, want 8", p.long, len(data))
	}
	for _, b := range data {
		long = long<<8 | int64(b)
	}
	data, _, err = c.GetData(ctx, p.count)
	switch {
	case err != nil:
		return 0, 0, fmt.Errorf("campaign: read %s: %w", p.count, err)
	case len(data) != 4:
		return 0, 0, fmt.Errorf("campaign: %s holds %d bytes, want 4", p.count, len(data))
	}
	count = int64(int32(uint32(data[0])<<24 | uint32(data[1])<<16 | uint32(data[2])<<8 | uint32(data[3])))
	return long, count, nil
}
