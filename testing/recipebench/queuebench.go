package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
)

// queueBench puts items items into a DistributedQueue from clients
// producers (each its share, one put after the other), then takes them with
// clients consumers in lock path mode, on both sides. Puts are synchronous
// on both (Curator's putInBackground(false)); the take phase runs from the
// consumers' start until the last item reached a consumer.
func queueBench(clients, items int) bench {
	per := max(1, items/clients)
	total := per * clients
	return bench{
		recipe: "DistributedQueue: puts and takes per second",
		label:  fmt.Sprintf("%s, %s, %d items, lock path", count(clients, "producer"), count(clients, "consumer"), total),
		slug:   fmt.Sprintf("queue-c%d", clients),
		metrics: []metric{
			{key: "puts_s", header: "puts/s", format: "%.0f", higher: true},
			{key: "takes_s", header: "takes/s", format: "%.0f", higher: true, ratio: true},
		},
		run: func(ctx context.Context, e *env, impl, path string) (sample, error) {
			lockPath := path + "-locks"
			var put, taken int64
			var putTook, takeTook time.Duration
			if impl == implCurator {
				f, err := e.curator.do(ctx, "RESULT", append([]string{"queue", path, lockPath, strconv.Itoa(per), strconv.Itoa(clients)},
					repeated(e.connect, 2*clients)...)...)
				if err != nil {
					return nil, err
				}
				var putNanos, takeNanos int64
				if err := fields(f, map[string]*int64{"put": &put, "putnanos": &putNanos, "taken": &taken, "takenanos": &takeNanos}); err != nil {
					return nil, err
				}
				putTook, takeTook = time.Duration(putNanos), time.Duration(takeNanos)
			} else {
				var err error
				if putTook, err = ourPuts(ctx, e, path, clients, per, &put); err != nil {
					return nil, err
				}
				if takeTook, err = ourTakes(ctx, e, path, lockPath, clients, total, &taken); err != nil {
					return nil, err
				}
			}
			if put != int64(total) || taken != int64(total) {
				return nil, fmt.Errorf("%d puts and %d takes, not %d each", put, taken, total)
			}
			left, _, err := e.client.Children(ctx, path)
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", path, err)
			}
			if len(left) != 0 {
				return nil, fmt.Errorf("%d item(s) left in %s after every take", len(left), path)
			}
			return sample{"puts_s": float64(put) / putTook.Seconds(), "takes_s": float64(taken) / takeTook.Seconds(),
				"put": float64(put), "taken": float64(taken)}, nil
		},
	}
}

// ourPuts runs producers zkcurator producers, each putting per items.
func ourPuts(ctx context.Context, e *env, path string, producers, per int, put *int64) (time.Duration, error) {
	return together(ctx, repeated(e.connect, producers), e.sessionTimeout, func(ctx context.Context, c *framework.Client) error {
		q, err := queue.NewDistributedQueue(c, path, queue.Bytes())
		if err != nil {
			return err
		}
		defer q.Close()
		if err := q.Start(ctx); err != nil {
			return err
		}
		item := []byte("item-0123456789")
		for range per {
			if _, err := q.Put(ctx, item); err != nil {
				return err
			}
			atomic.AddInt64(put, 1)
		}
		return nil
	})
}

// ourTakes starts consumers zkcurator consumers in lock path mode and
// returns the time from their start until total items reached them; it
// then waits for the last deletes before it closes them.
func ourTakes(ctx context.Context, e *env, path, lockPath string, consumers, total int, taken *int64) (time.Duration, error) {
	done := make(chan struct{})
	consume := func(context.Context, []byte) error {
		if atomic.AddInt64(taken, 1) == int64(total) {
			close(done)
		}
		return nil
	}
	var clients []*framework.Client
	var queues []*queue.DistributedQueue[[]byte]
	defer func() {
		for _, q := range queues {
			q.Close()
		}
		for _, c := range clients {
			c.Close()
		}
	}()
	for range consumers {
		c, err := connect(ctx, e.connect, e.sessionTimeout)
		if err != nil {
			return 0, err
		}
		clients = append(clients, c)
		q, err := queue.NewDistributedQueue(c, path, queue.Bytes(), queue.WithLockPath(lockPath), queue.WithConsumer[[]byte](consume))
		if err != nil {
			return 0, err
		}
		queues = append(queues, q)
	}
	began := time.Now()
	for _, q := range queues {
		if err := q.Start(ctx); err != nil {
			return 0, err
		}
	}
	select {
	case <-done:
	case <-ctx.Done():
		return 0, fmt.Errorf("%d of %d items taken: %w", atomic.LoadInt64(taken), total, ctx.Err())
	}
	took := time.Since(began)
	return took, awaitEmpty(ctx, e.client, path)
}

// awaitEmpty waits, within ctx, until path has no children.
func awaitEmpty(ctx context.Context, c *framework.Client, path string) error {
	for {
		left, _, err := c.Children(ctx, path)
		switch {
		case err != nil:
			return fmt.Errorf("list %s: %w", path, err)
		case len(left) == 0:
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(fmt.Errorf("%d item(s) still in %s", len(left), path), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
