package main

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// lineup stages workers that contend for one lock so that the order they
// arrive in is known: worker 1 takes the lock and keeps it until everyone is
// in line, and each other worker is started only once the one before it has
// a node in line. It records the order of arrival and of acquisition and who
// was inside the critical section when.
//
// The first failure (of a worker, or of waiting for one) ends the lineup:
// its context is cancelled, later calls do nothing, and Finish returns it.
type lineup struct {
	p        *printer
	ctx      context.Context
	cancel   context.CancelCauseFunc
	wg       sync.WaitGroup
	firstIn  chan struct{} // closed once worker 1 holds the lock
	everyone chan struct{} // closed when worker 1 may release
	once     sync.Once

	mu  sync.Mutex
	res contention
}

// contention is the outcome of a lineup.
type contention struct {
	Arrival  []int    // worker numbers in the order their nodes appeared
	Queue    []int    // worker numbers in lock order once all were in line
	Acquired []int    // worker numbers in the order they got the lock
	Section  *section // who held the lock when
}

// newLineup returns an empty lineup whose workers run with a context derived
// from ctx.
func newLineup(ctx context.Context, p *printer) *lineup {
	ctx, cancel := context.WithCancelCause(ctx)
	return &lineup{
		p:        p,
		ctx:      ctx,
		cancel:   cancel,
		firstIn:  make(chan struct{}),
		everyone: make(chan struct{}),
		res:      contention{Section: &section{}},
	}
}

// Start runs work, worker n's turn at the lock, on a goroutine of its own
// with the lineup's context. An error from work ends the lineup.
func (l *lineup) Start(n int, work func(ctx context.Context) error) {
	if l.ctx.Err() != nil {
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		if err := work(l.ctx); err != nil {
			l.cancel(err)
		}
	}()
}

// AwaitInLine waits until worker n, just started, is in line (worker 1
// until it holds the lock, any other until nodes lists n contenders) and
// records its arrival.
func (l *lineup) AwaitInLine(n int, nodes func(context.Context) ([]string, error)) {
	if l.ctx.Err() != nil {
		return
	}
	if n == 1 {
		select {
		case <-l.firstIn:
		case <-l.ctx.Done():
			return
		}
	} else {
		err := waitUntil(l.ctx, arrivalTimeout, fmt.Sprintf("the node of %s is in line", workerName(n)),
			func(ctx context.Context) (bool, error) {
				in, err := nodes(ctx)
				return len(in) == n, err
			})
		if err != nil {
			l.cancel(err)
			return
		}
	}
	l.mu.Lock()
	l.res.Arrival = append(l.res.Arrival, n)
	l.mu.Unlock()
}

// Acquired records that worker n holds the lock through node, and says so.
// Worker 1 then keeps the lock here until everyone is in line (Finish). The
// returned function records and says that the worker is about to release.
func (l *lineup) Acquired(n int, node string) (releasing func()) {
	leave := l.res.Section.Enter(workerName(n), true)
	l.mu.Lock()
	l.res.Acquired = append(l.res.Acquired, n)
	l.mu.Unlock()
	l.p.Say("%s acquired (node %s)", workerName(n), shortNode(node))
	if n == 1 {
		close(l.firstIn)
		l.p.Say("%s keeps the lock until everyone is in line", workerName(n))
		select {
		case <-l.everyone:
		case <-l.ctx.Done():
		}
	}
	return func() {
		l.p.Say("%s releases", workerName(n))
		leave()
	}
}

// ShowQueue prints the contenders' nodes in lock order with the worker each
// belongs to (read through c from the node's data, which must be the
// worker's name), marking m's node as the holder's, and records the order.
func (l *lineup) ShowQueue(c *framework.Client, m *locks.InterProcessMutex) {
	if l.ctx.Err() != nil {
		return
	}
	queue, err := showQueue(l.ctx, l.p, c, m)
	if err != nil {
		l.cancel(err)
		return
	}
	l.mu.Lock()
	l.res.Queue = queue
	l.mu.Unlock()
}

// Finish lets worker 1 go on, waits for every worker started and returns
// what happened, or the lineup's first failure.
func (l *lineup) Finish() (*contention, error) {
	l.once.Do(func() { close(l.everyone) })
	l.wg.Wait()
	defer l.cancel(nil)
	if err := context.Cause(l.ctx); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	res := l.res
	return &res, nil
}

func showQueue(ctx context.Context, p *printer, c *framework.Client, m *locks.InterProcessMutex) ([]int, error) {
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
		if n == m.LockPath() {
			line += " (holds the lock)"
		}
		lines = append(lines, line)
	}
	for _, l := range lines {
		p.Say("%s", l)
	}
	return queue, nil
}

// checkFair checks that every one of workers held the lock once, alone, in
// the order of arrival.
func checkFair(res *contention, workers int) *verdict {
	v := checkExclusive(res, workers)
	v.Expect(slices.Equal(res.Arrival, res.Acquired),
		"acquisition order %s differs from arrival order %s", orderString(res.Acquired), orderString(res.Arrival))
	return v
}

// checkExclusive checks that every one of workers held the lock exactly
// once and never together with another.
func checkExclusive(res *contention, workers int) *verdict {
	v := &verdict{}
	st := res.Section.Stats()
	v.Expect(len(st.Violations) == 0, "mutual exclusion broken: %v", st.Violations)
	v.Expect(st.MaxInside <= 1, "%d workers held the lock at once", st.MaxInside)
	v.Expect(st.Entries == workers, "%d acquisitions for %d workers", st.Entries, workers)
	seen := make(map[int]bool)
	for _, n := range res.Acquired {
		v.Expect(!seen[n], "%s acquired twice", workerName(n))
		seen[n] = true
	}
	v.Expect(len(seen) == workers, "%d of %d workers acquired the lock", len(seen), workers)
	return v
}

// workerName is how the program names worker n: "worker 3".
func workerName(n int) string { return fmt.Sprintf("worker %d", n) }

// orderString formats worker numbers as "1 2 3".
func orderString(order []int) string {
	s := make([]string, len(order))
	for i, n := range order {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, " ")
}

// arrivalTimeout bounds how long a contender's node may take to show up in
// line.
const arrivalTimeout = 10 * time.Second

// shortNode drops the path and the protection prefix of a lock node:
// "/locks/x/_c_<uuid>-lock-0000000003" becomes "lock-0000000003".
func shortNode(p string) string {
	return protection.Strip(path.Base(p))
}
