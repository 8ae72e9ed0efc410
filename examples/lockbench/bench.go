package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// section is the critical section every cycle enters: an occupancy count
// that must be 1 inside, and a counter incremented by a separate load and
// store, so that two holders at once can lose an update. Atomics keep the
// race detector quiet: the lock's happens-before goes through ZooKeeper,
// which it cannot see.
type section struct {
	inside     atomic.Int64
	violations atomic.Int64
	counter    atomic.Int64
	released   atomic.Pointer[release] // the last holder's release call; nil before
}

// release is a holder's release call: when, and in which session.
type release struct {
	at      time.Time
	session int64
}

func (s *section) enter() {
	if s.inside.Add(1) != 1 {
		s.violations.Add(1)
	}
	s.counter.Store(s.counter.Load() + 1)
	s.inside.Add(-1)
}

// worker is one client: its session, its lock handle and what it measured.
type worker struct {
	sess    session
	mu      mutex
	acq     []time.Duration // measured cycles only
	cycle   []time.Duration
	handoff []handoff // from the last holder's release call to our acquire's return
	entered int64     // critical sections entered, warm-up included
	err     error     // the first failure; the worker stops there
}

// run does one acquire, critical section, release cycle. Its hand-off runs
// from the previous holder's release call (its own, uncontended) to this
// acquire's return; its from is zero for the first cycle of the run.
func (w *worker) run(ctx context.Context, sec *section) (acq, cycle time.Duration, h handoff, err error) {
	start := time.Now()
	if err := w.mu.acquire(ctx); err != nil {
		return 0, 0, h, fmt.Errorf("acquire: %w", err)
	}
	h.to, h.acquirer = time.Now(), w.sess.id()
	if prev := sec.released.Load(); prev != nil {
		h.from, h.releaser = prev.at, prev.session
	}
	sec.enter()
	w.entered++
	sec.released.Store(&release{at: time.Now(), session: h.acquirer})
	if err := w.mu.release(ctx); err != nil {
		return 0, 0, h, fmt.Errorf("release: %w", err)
	}
	return h.to.Sub(start), time.Since(start), h, nil
}

// bench runs the workload of cfg against connect and measures it.
func bench(ctx context.Context, cfg config, connect string, probe *costProbe, log io.Writer) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()

	workers, err := dialAll(ctx, cfg, connect)
	if err != nil {
		return result{}, err
	}
	closeAll := func() {
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.sess.close()
			}()
		}
		wg.Wait()
	}
	defer closeAll()
	// A failed client ends the run: a lock node it left behind could block
	// the others until the timeout. go-zookeeper's Lock cannot be cancelled,
	// so when the run ends early, closing the sessions ends every wait.
	ctx, abort := context.WithCancel(ctx)
	defer abort()
	stopWatchdog := context.AfterFunc(ctx, closeAll)
	defer stopWatchdog()

	fmt.Fprintf(log, "lockbench: %s, %d clients on %s, %d warm-up and %d measured cycles each\n",
		describe(cfg), cfg.clients, cfg.path, cfg.warmup, cfg.n)
	var sec section
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for _, w := range workers {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			defer func() {
				if w.err != nil {
					abort()
				}
			}()
			for range cfg.warmup {
				if _, _, _, w.err = w.run(ctx, &sec); w.err != nil {
					break
				}
			}
			ready.Done()
			if w.err != nil {
				return
			}
			select {
			case <-start:
			case <-ctx.Done():
				w.err = ctx.Err()
				return
			}
			for range cfg.n {
				var acq, cycle time.Duration
				var h handoff
				if acq, cycle, h, w.err = w.run(ctx, &sec); w.err != nil {
					return
				}
				w.acq = append(w.acq, acq)
				w.cycle = append(w.cycle, cycle)
				w.handoff = append(w.handoff, h)
			}
		}()
	}
	ready.Wait()
	probe.begin(log)
	began := time.Now()
	close(start)
	done.Wait()
	elapsed := time.Since(began)
	cost := probe.end(log)

	res := result{impl: cfg.impl, clients: cfg.clients, iterations: cfg.n, secs: elapsed.Seconds()}
	var acq, cycle, gaps []time.Duration
	var handoffs []handoff
	var entered int64
	for i, w := range workers {
		acq = append(acq, w.acq...)
		cycle = append(cycle, w.cycle...)
		for _, h := range w.handoff {
			if !h.from.IsZero() {
				gaps = append(gaps, h.to.Sub(h.from))
			}
		}
		handoffs = append(handoffs, w.handoff...)
		entered += w.entered
		if w.err != nil {
			res.errors++
			fmt.Fprintf(log, "lockbench: client %d stopped after %d measured cycles: %v\n", i, len(w.acq), w.err)
		}
	}
	res.ops = len(cycle)
	res.cost = cost.perCycle(res.ops)
	res.acqP50, res.acqP99 = percentile(acq, 50), percentile(acq, 99)
	res.cycleP50, res.cycleP99 = percentile(cycle, 50), percentile(cycle, 99)
	res.handoffP50 = percentile(gaps, 50)
	res.trace = probe.trace(handoffs, log)
	res.violations = sec.violations.Load()
	res.counterOK = sec.counter.Load() == entered
	if !res.counterOK {
		fmt.Fprintf(log, "lockbench: counter is %d after %d critical sections: updates were lost\n", sec.counter.Load(), entered)
	}
	return res, nil
}

// maxPrealloc bounds the latency samples allocated up front per client.
const maxPrealloc = 1 << 16

// dialAll opens one session and lock handle per client, concurrently.
func dialAll(ctx context.Context, cfg config, connect string) ([]*worker, error) {
	workers := make([]*worker, cfg.clients)
	errs := make([]error, cfg.clients)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := dial(ctx, cfg, connect)
			if err != nil {
				errs[i] = fmt.Errorf("client %d: %w", i, err)
				return
			}
			mu, err := s.newMutex(cfg.path)
			if err != nil {
				s.close()
				errs[i] = fmt.Errorf("client %d: %w", i, err)
				return
			}
			capacity := min(cfg.n, maxPrealloc)
			workers[i] = &worker{
				sess:    s,
				mu:      mu,
				acq:     make([]time.Duration, 0, capacity),
				cycle:   make([]time.Duration, 0, capacity),
				handoff: make([]handoff, 0, capacity),
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, w := range workers {
			if w != nil {
				w.sess.close()
			}
		}
		return nil, err
	}
	return workers, nil
}

func describe(cfg config) string {
	switch cfg.impl {
	case implGozk:
		return "go-zookeeper zk.Lock"
	case implFloor:
		return "the hand-off floor (a queue holding on its predecessor's deletion)"
	}
	return "zkcurator InterProcessMutex (" + cfg.driver + " driver)"
}
