package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	zkatomic "github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/retry"
)

// atomicPromoted is both sides' promoted phase: a lock at lockPath for up
// to 10 s, with 3 more tries 1 ms apart (the helper sets the same).
func atomicPromoted(lockPath string) zkatomic.PromotedToLock {
	return zkatomic.PromotedToLock{LockPath: lockPath, MaxLockTime: 10 * time.Second, RetryPolicy: retry.NTimes{N: 3, Sleep: time.Millisecond}}
}

// atomicBench increments one DistributedAtomicLong ops times in all, split
// among clients sessions that contend from the start. Both sides try
// optimistically with Curator's BoundedExponentialBackoffRetry(5 ms, 250 ms,
// retries), then under the promoted lock.
func atomicBench(clients, retries, ops int) bench {
	per := max(1, ops/clients)
	policy := retry.ExponentialBackoff{BaseSleep: 5 * time.Millisecond, MaxSleep: 250 * time.Millisecond, MaxRetries: retries}
	return bench{
		recipe: "DistributedAtomicLong: increments per second",
		label:  fmt.Sprintf("%s, %s, %d increments", count(clients, "client"), count(retries, "optimistic retry"), per*clients),
		slug:   fmt.Sprintf("atomic-c%d-r%d", clients, retries),
		metrics: []metric{
			{key: "incr_s", header: "incr/s", format: "%.0f", higher: true},
			{key: "promoted_pct", header: "promoted %", format: "%.1f"},
			{key: "failed", header: "failed", format: "%.0f"},
		},
		run: func(ctx context.Context, e *env, impl, path string) (sample, error) {
			var ok, failed, promoted int64
			var took time.Duration
			if impl == implCurator {
				f, err := e.curator.do(ctx, "RESULT", append([]string{"atomic", path, path + "-lock", strconv.Itoa(retries), strconv.Itoa(per)}, repeated(e.connect, clients)...)...)
				if err != nil {
					return nil, err
				}
				var nanos int64
				if err := fields(f, map[string]*int64{"ok": &ok, "failed": &failed, "promoted": &promoted, "nanos": &nanos}); err != nil {
					return nil, err
				}
				took = time.Duration(nanos)
			} else {
				var err error
				took, err = together(ctx, repeated(e.connect, clients), e.sessionTimeout, func(ctx context.Context, c *framework.Client) error {
					counter, err := zkatomic.NewDistributedAtomicLong(c, path, zkatomic.WithRetryPolicy(policy), zkatomic.WithPromotedToLock(atomicPromoted(path+"-lock")))
					if err != nil {
						return err
					}
					for range per {
						r, err := counter.Increment(ctx)
						if err != nil {
							return err
						}
						if r.Succeeded {
							atomic.AddInt64(&ok, 1)
						} else {
							atomic.AddInt64(&failed, 1)
						}
						if r.Stats.PromotedLockTries > 0 {
							atomic.AddInt64(&promoted, 1)
						}
					}
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
			if ok+failed != int64(per*clients) {
				return nil, fmt.Errorf("%d increments succeeded and %d failed, not %d in all", ok, failed, per*clients)
			}
			if err := checkCounter(ctx, e.client, path, ok); err != nil {
				return nil, err
			}
			return sample{
				"incr_s":       float64(ok) / took.Seconds(),
				"promoted_pct": 100 * float64(promoted) / float64(ok+failed),
				"failed":       float64(failed),
				"ok":           float64(ok),
				"increments":   float64(ok + failed),
			}, nil
		},
	}
}

// checkCounter verifies that the long at path holds want: every increment
// reported as succeeded applied once.
func checkCounter(ctx context.Context, c *framework.Client, path string, want int64) error {
	data, _, err := c.GetData(ctx, path)
	if err != nil {
		return fmt.Errorf("read the counter %s: %w", path, err)
	}
	if len(data) != 8 {
		return fmt.Errorf("the counter %s holds %d bytes, not 8", path, len(data))
	}
	if got := int64(binary.BigEndian.Uint64(data)); got != want {
		return fmt.Errorf("the counter %s holds %d after %d successful increments", path, got, want)
	}
	return nil
}

// fields parses the helper's key=value reply fields into the named int64s;
// every name must be present.
func fields(f []string, into map[string]*int64) error {
	seen := 0
	for _, kv := range f {
		k, v, ok := strings.Cut(kv, "=")
		p, want := into[k]
		if !ok || !want {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("reply field %q: %w", kv, err)
		}
		*p = n
		seen++
	}
	if seen != len(into) {
		return fmt.Errorf("reply %q lacks some of %d fields", f, len(into))
	}
	return nil
}
