package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// semaphoreBench acquires and returns a lease of an InterProcessSemaphoreV2
// of leases leases ops times in all, split among clients sessions.
func semaphoreBench(leases, clients, ops int) bench {
	per := max(1, ops/clients)
	return bench{
		recipe:  "InterProcessSemaphoreV2: acquire and return cycles per second",
		label:   fmt.Sprintf("%s, %s, %d cycles", count(leases, "lease"), count(clients, "client"), per*clients),
		slug:    fmt.Sprintf("semaphore-l%d-c%d", leases, clients),
		metrics: []metric{{key: "cycles_s", header: "cycles/s", format: "%.0f", higher: true}},
		run: func(ctx context.Context, e *env, impl, path string) (sample, error) {
			var cycles int64
			var took time.Duration
			if impl == implCurator {
				f, err := e.curator.do(ctx, "RESULT", append([]string{"semaphore", path, strconv.Itoa(leases), strconv.Itoa(per)}, repeated(e.connect, clients)...)...)
				if err != nil {
					return nil, err
				}
				var nanos int64
				if err := fields(f, map[string]*int64{"cycles": &cycles, "nanos": &nanos}); err != nil {
					return nil, err
				}
				took = time.Duration(nanos)
			} else {
				var err error
				took, err = together(ctx, repeated(e.connect, clients), e.sessionTimeout, func(ctx context.Context, c *framework.Client) error {
					sem, err := locks.NewInterProcessSemaphoreV2(c, path, leases)
					if err != nil {
						return err
					}
					for range per {
						lease, err := sem.Acquire(ctx)
						if err != nil {
							return err
						}
						if err := lease.Close(ctx); err != nil {
							return err
						}
						atomic.AddInt64(&cycles, 1)
					}
					return nil
				})
				if err != nil {
					return nil, err
				}
			}
			if cycles != int64(per*clients) {
				return nil, fmt.Errorf("%d cycles, not %d", cycles, per*clients)
			}
			return sample{"cycles_s": float64(cycles) / took.Seconds(), "cycles": float64(cycles)}, nil
		},
	}
}
