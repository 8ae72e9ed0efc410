// Command mutex shows that InterProcessMutex is fair: ten workers, each with
// a client of its own as ten processes would have, line up for one lock and
// get it one at a time in the order they arrived. It exits with status 1 if
// two workers ever held the lock at once or the order was not the arrival
// order.
//
//	go run ./examples/mutex [-workers 10] [-hold 100ms]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run from the top: a client per worker, a mutex per client,
// and each worker's turn in work: Acquire, the protected work, Release.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	workers := flag.Int("workers", 10, "number of workers, each with its own client (2..50)")
	hold := flag.Duration("hold", 100*time.Millisecond, "how long each worker holds the lock (negative: not at all)")
	flag.Parse()
	cfg := config{Workers: *workers, Hold: *hold}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// lockPath is the lock every worker contends for.
const lockPath = "/locks/orders"

// run lets cfg.Workers workers, each with a client of its own, contend for
// one InterProcessMutex. It fails with errInvariant if two workers ever
// held the lock at once or the order of acquisition differs from the order
// of arrival.
func run(ctx context.Context, connect string, out io.Writer, cfg config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "mutex")
	defer st.Close()
	p := st.Printer
	p.Title("mutex: %d workers, each with its own client, contend for one InterProcessMutex (fair)", cfg.Workers)

	p.Say("connecting %d clients, one per worker, as %d processes would", cfg.Workers, cfg.Workers)
	clients, err := connectAll(ctx, cfg.Workers, func(ctx context.Context) (*framework.Client, error) {
		return newClient(ctx, connect, st.Namespace())
	})
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()

	// One mutex per worker, on the same path. The node's data names the
	// worker, so that anyone can read who is in line.
	mutexes := make([]*locks.InterProcessMutex, cfg.Workers)
	for i, c := range clients {
		if mutexes[i], err = locks.NewInterProcessMutex(c, lockPath, locks.WithLockData([]byte(workerName(i+1)))); err != nil {
			return err
		}
	}

	line := newLineup(ctx, p)
	for i, m := range mutexes {
		line.Start(i+1, func(ctx context.Context) error { return work(ctx, p, line, i+1, m, cfg.Hold) })
		line.AwaitInLine(i+1, m.ParticipantNodes)
	}
	line.ShowQueue(clients[0], mutexes[0])
	res, err := line.Finish()
	if err != nil {
		return err
	}
	p.Say("arrival order:     %s", orderString(res.Arrival))
	p.Say("acquisition order: %s", orderString(res.Acquired))
	return checkFair(res, cfg.Workers).Conclude(p, "one holder at a time, and the lock went to the workers in the order they arrived")
}

// work is worker n's turn: wait for the lock, do the work it protects (here,
// hold it for a while), release it. Release gets a context of its own, so
// that a cancelled run still deletes the lock node at once.
func work(ctx context.Context, p *printer, line *lineup, n int, m *locks.InterProcessMutex, hold time.Duration) error {
	p.Say("%s waiting", workerName(n))
	if err := m.Acquire(ctx); err != nil {
		return fmt.Errorf("%s: acquire: %w", workerName(n), err)
	}
	releasing := line.Acquired(n, m.LockPath())
	select {
	case <-time.After(hold):
	case <-ctx.Done():
	}
	releasing()
	if err := m.Release(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("%s: release: %w", workerName(n), err)
	}
	return nil
}

// newClient connects one client, as one process would: Curator's exponential
// backoff for retries, a session timeout, and the demo's namespace under
// which every path is resolved. Start returns at once; BlockUntilConnected
// waits (here at most 15s) for the first connection.
func newClient(ctx context.Context, connect, namespace string) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(4*time.Second),
		framework.WithConnectionTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	if err := client.Start(); err != nil {
		client.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := client.BlockUntilConnected(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("connect to ZooKeeper at %s: %w", connect, err)
	}
	return client, nil
}

// config sizes the demo.
type config struct {
	// Workers is the number of contenders, each with a client of its own as
	// separate processes would have; 2 to 50, 10 when zero.
	Workers int
	// Hold is how long each worker keeps the lock; at most 5s, 100ms when
	// zero (a negative value means not at all).
	Hold time.Duration
}

func (c config) withDefaults() (config, error) {
	if c.Workers == 0 {
		c.Workers = 10
	}
	if c.Hold == 0 {
		c.Hold = 100 * time.Millisecond
	}
	if c.Hold < 0 {
		c.Hold = 0
	}
	switch {
	case c.Workers < 2 || c.Workers > 50:
		return c, fmt.Errorf("demo: Workers %d is outside 2..50", c.Workers)
	case c.Hold > 5*time.Second:
		return c, fmt.Errorf("demo: Hold %v is longer than 5s", c.Hold)
	}
	return c, nil
}
