package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/recipes/locks"
)

// SemaphoreConfig sizes the semaphore demo.
type SemaphoreConfig struct {
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

func (c SemaphoreConfig) withDefaults() (SemaphoreConfig, error) {
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

// Semaphore shows InterProcessSemaphoreV2 as the front door of a flash sale:
// requests arrive together at several servers, each request takes a lease
// before it enters checkout and returns it when done, so no more than Leases
// requests are in checkout at once across all servers. It fails with
// ErrInvariant if more were ever inside or a request was not served.
func Semaphore(ctx context.Context, connect string, out io.Writer, cfg SemaphoreConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "semaphore")
	defer st.close()
	p := st.p
	p.title("semaphore: %d requests at %d servers, at most %d in checkout at once (InterProcessSemaphoreV2)",
		cfg.Requests, cfg.Servers, cfg.Leases)

	clients, err := st.clientsFor(ctx, cfg.Servers)
	if err != nil {
		return err
	}
	const semPath = "/semaphores/checkout"
	sems := make([]*locks.InterProcessSemaphoreV2, len(clients))
	for i, c := range clients {
		sems[i] = locks.NewInterProcessSemaphoreV2(c, semPath, cfg.Leases)
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

	stats := sec.stats()
	p.say("%d requests served in %v; at the busiest moment %d were in checkout", stats.entries, took.Round(time.Millisecond), stats.maxInside)
	v := &verdict{}
	v.expect(stats.maxInside <= cfg.Leases, "%d requests were in checkout at once, the limit is %d", stats.maxInside, cfg.Leases)
	v.expect(stats.entries == cfg.Requests, "%d of %d requests served", stats.entries, cfg.Requests)
	return v.conclude(p, fmt.Sprintf("never more than %d requests in checkout, every request served", cfg.Leases))
}

// serve handles one request: lease, checkout, return the lease.
func serve(ctx context.Context, p *printer, sec *section, sem *locks.InterProcessSemaphoreV2, name string, work time.Duration) error {
	lease, err := sem.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("%s: acquire a lease: %w", name, err)
	}
	leave := sec.enter(name, false)
	p.say("%s enters checkout with %s (%d inside)", name, shortNode(lease.Path()), sec.stats().inside)
	pauseErr := pause(ctx, work)
	leave()
	p.say("%s done, returns its lease", name)
	return errors.Join(pauseErr, lease.Close(context.WithoutCancel(ctx)))
}
