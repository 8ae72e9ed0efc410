// Command semaphore shows InterProcessSemaphoreV2 as the front door of a
// flash sale: requests arriving together at several servers each take a
// lease before checkout, so no more than a fixed number are in checkout at
// once across all servers. It exits with status 1 if more ever were.
//
//	go run ./examples/semaphore [-leases 3] [-requests 12] [-servers 3] [-work 50ms]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run from the top: a client and a semaphore per server, then
// serve: Acquire a lease, the work it allows, Close the lease.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	leases := flag.Int("leases", 3, "requests allowed in checkout at once (1..20)")
	requests := flag.Int("requests", 12, "requests arriving together (1..500)")
	servers := flag.Int("servers", 3, "front-end servers, each with its own client (1..20)")
	work := flag.Duration("work", 50*time.Millisecond, "longest time a request stays in checkout (negative: none)")
	flag.Parse()
	cfg := config{Leases: *leases, Requests: *requests, Servers: *servers, Work: *work}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

// semPath is the semaphore every server shares.
const semPath = "/semaphores/checkout"

// run shows InterProcessSemaphoreV2 as the front door of a flash sale:
// requests arrive together at several servers, each request takes a lease
// before it enters checkout and returns it when done, so no more than
// cfg.Leases requests are in checkout at once across all servers. It fails
// with errInvariant if more were ever inside or a request was not
// served.
func run(ctx context.Context, connect string, out io.Writer, cfg config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "semaphore")
	defer st.Close()
	p := st.Printer
	p.Title("semaphore: %d requests at %d servers, at most %d in checkout at once (InterProcessSemaphoreV2)",
		cfg.Requests, cfg.Servers, cfg.Leases)

	clients, err := connectAll(ctx, cfg.Servers, func(ctx context.Context) (*framework.Client, error) {
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

	// One semaphore per server, on the same path, with the same number of leases.
	sems := make([]*locks.InterProcessSemaphoreV2, len(clients))
	for i, c := range clients {
		if sems[i], err = locks.NewInterProcessSemaphoreV2(c, semPath, cfg.Leases); err != nil {
			return err
		}
	}

	sec := &section{}
	var (
		wg    sync.WaitGroup
		errs  = make([]error, cfg.Requests)
		start = make(chan struct{})
	)
	for i := range cfg.Requests {
		server := i % cfg.Servers
		name := fmt.Sprintf("request %d (server %d)", i+1, server+1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = serve(ctx, p, sec, sems[server], name, cfg.Work)
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	took := time.Since(began)

	stats := sec.Stats()
	p.Say("%d requests served in %v; at the busiest moment %d were in checkout", stats.Entries, took.Round(time.Millisecond), stats.MaxInside)
	v := &verdict{}
	v.Expect(stats.MaxInside <= cfg.Leases, "%d requests were in checkout at once, the limit is %d", stats.MaxInside, cfg.Leases)
	v.Expect(stats.Entries == cfg.Requests, "%d of %d requests served", stats.Entries, cfg.Requests)
	return v.Conclude(p, fmt.Sprintf("never more than %d requests in checkout, every request served", cfg.Leases))
}

// serve handles one request: it waits for a lease, works in checkout for a
// random time up to work and returns the lease, with a context of its own so
// that a cancelled run still returns it at once.
func serve(ctx context.Context, p *printer, sec *section, sem *locks.InterProcessSemaphoreV2, name string, work time.Duration) error {
	lease, err := sem.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("%s: acquire a lease: %w", name, err)
	}
	leave := sec.Enter(name, false)
	p.Say("%s enters checkout with %s (%d inside)", name, shortNode(lease.Path()), sec.Stats().Inside)
	pauseErr := pause(ctx, work)
	leave()
	p.Say("%s done, returns its lease", name)
	return errors.Join(pauseErr, lease.Close(context.WithoutCancel(ctx)))
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
	// Leases is how many requests may be in checkout at once; 1 to 20, 3
	// when zero.
	Leases int
	// Requests is the number of requests that arrive together; 1 to 500,
	// 12 when zero.
	Requests int
	// Servers is the number of front-end servers, each with a client of its
	// own, that the requests are spread over; 1 to 20, 3 when zero.
	Servers int
	// Work bounds how long a request stays in checkout (a random time up to
	// Work); at most 5s, 50ms when zero (a negative value means no time).
	Work time.Duration
}

func (c config) withDefaults() (config, error) {
	if c.Leases == 0 {
		c.Leases = 3
	}
	if c.Requests == 0 {
		c.Requests = 12
	}
	if c.Servers == 0 {
		c.Servers = 3
	}
	if c.Work == 0 {
		c.Work = 50 * time.Millisecond
	}
	if c.Work < 0 {
		c.Work = 0
	}
	switch {
	case c.Leases < 1 || c.Leases > 20:
		return c, fmt.Errorf("demo: Leases %d is outside 1..20", c.Leases)
	case c.Requests < 1 || c.Requests > 500:
		return c, fmt.Errorf("demo: Requests %d is outside 1..500", c.Requests)
	case c.Servers < 1 || c.Servers > 20:
		return c, fmt.Errorf("demo: Servers %d is outside 1..20", c.Servers)
	case c.Work > 5*time.Second:
		return c, fmt.Errorf("demo: Work %v is longer than 5s", c.Work)
	}
	return c, nil
}
