package demo

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// arrivalTimeout bounds how long a contender's node may take to show up.
const arrivalTimeout = 10 * time.Second

// ContentionConfig sizes the mutex and unfair demos.
type ContentionConfig struct {
	// Workers is the number of contenders, each with a client of its own as
	// separate processes would have; 2 to 50, 10 when zero.
	Workers int
	// Hold is how long each worker keeps the lock; at most 5s, 100ms when
	// zero (a negative value means not at all).
	Hold time.Duration
}

func (c ContentionConfig) withDefaults() (ContentionConfig, error) {
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

// contention is the outcome of workers contending for one lock.
type contention struct {
	arrival  []int // worker numbers in the order their nodes appeared
	queue    []int // worker numbers in lock order once all were in line
	acquired []int // worker numbers in the order they got the lock
	sec      *section
}

// contend lets cfg.Workers workers contend for one InterProcessMutex on
// lockPath with driver. Worker 1 takes the lock first and keeps it until
// every other worker is in line; the others are started one after another,
// each only once the node of the one before is visible in ZooKeeper, so the
// arrival order is known. Then the lock passes from worker to worker.
func contend(ctx context.Context, st *stage, cfg ContentionConfig, driver locks.LockInternalsDriver, lockPath string) (*contention, error) {
	p := st.p
	p.say("connecting %d clients, one per worker, as %d processes would", cfg.Workers, cfg.Workers)
	clients, err := st.clientsFor(ctx, cfg.Workers)
	if err != nil {
		return nil, err
	}
	mutexes := make([]*locks.InterProcessMutex, cfg.Workers)
	for i, c := range clients {
		mutexes[i] = locks.NewInterProcessMutex(c, lockPath,
			locks.WithDriver(driver), locks.WithLockData([]byte(workerName(i+1))))
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	res := &contention{sec: &section{}}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstIn  = make(chan struct{})
		everyone = make(chan struct{}) // closed when all workers are in line
	)
	worker := func(n int, m *locks.InterProcessMutex) {
		defer wg.Done()
		p.say("%s waiting", workerName(n))
		if err := m.Acquire(ctx); err != nil {
			cancel(fmt.Errorf("%s: acquire: %w", workerName(n), err))
			return
		}
		leave := res.sec.enter(workerName(n), true)
		mu.Lock()
		res.acquired = append(res.acquired, n)
		mu.Unlock()
		p.say("%s acquired (node %s)", workerName(n), shortNode(m.LockPath()))
		if n == 1 {
			close(firstIn)
			p.say("%s keeps the lock until everyone is in line", workerName(n))
			select {
			case <-everyone:
			case <-ctx.Done():
			}
		}
		select {
		case <-time.After(cfg.Hold):
		case <-ctx.Done():
		}
		p.say("%s releases", workerName(n))
		leave()
		if err := m.Release(context.WithoutCancel(ctx)); err != nil {
			cancel(fmt.Errorf("%s: release: %w", workerName(n), err))
		}
	}

	wg.Add(1)
	go worker(1, mutexes[0])
	res.arrival = append(res.arrival, 1)
	select {
	case <-firstIn:
	case <-ctx.Done():
	}
	for i := 1; i < cfg.Workers && ctx.Err() == nil; i++ {
		wg.Add(1)
		go worker(i+1, mutexes[i])
		err := waitUntil(ctx, arrivalTimeout, fmt.Sprintf("the node of %s is in line", workerName(i+1)),
			func(ctx context.Context) (bool, error) {
				nodes, err := mutexes[0].ParticipantNodes(ctx)
				return len(nodes) == i+1, err
			})
		if err != nil {
			cancel(err)
			break
		}
		res.arrival = append(res.arrival, i+1)
	}
	if ctx.Err() == nil {
		queue, err := showQueue(ctx, p, clients[0], mutexes[0], mutexes[0].LockPath())
		if err != nil {
			cancel(err)
		}
		res.queue = queue
	}
	close(everyone)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// showQueue prints the contenders' nodes in lock order with the worker each
// belongs to (read from the node's data), marking the holder's node, and
// returns the workers' numbers in that order.
func showQueue(ctx context.Context, p *printer, c *framework.Client, m *locks.InterProcessMutex, holder string) ([]int, error) {
	nodes, err := m.ParticipantNodes(ctx)
	if err != nil {
		return nil, err
	}
	var queue []int
	lines := []string{fmt.Sprintf("everyone is in line; the %d nodes in ZooKeeper, in lock order:", len(nodes))}
	for _, n := range nodes {
		data, _, err := c.GetData(ctx, n)
		if err != nil {
			return nil, err
		}
		var worker int
		if _, err := fmt.Sscanf(string(data), "worker %d", &worker); err != nil {
			return nil, fmt.Errorf("lock node %s holds %q, not a worker's name", n, data)
		}
		queue = append(queue, worker)
		line := fmt.Sprintf("    %s  %s", shortNode(n), data)
		if n == holder {
			line += " (holds the lock)"
		}
		lines = append(lines, line)
	}
	for _, l := range lines {
		p.say("%s", l)
	}
	return queue, nil
}

// shortNode drops the path and the protection prefix of a lock node:
// "/locks/x/_c_<uuid>-lock-0000000003" becomes "lock-0000000003".
func shortNode(p string) string {
	return protection.Strip(path.Base(p))
}

func workerName(n int) string { return fmt.Sprintf("worker %d", n) }

// orderString formats worker numbers as "1 2 3".
func orderString(order []int) string {
	s := make([]string, len(order))
	for i, n := range order {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, " ")
}
