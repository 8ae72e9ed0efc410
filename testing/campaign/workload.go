package campaign

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/campaign/internal/ensemble"
)

// maxDwell bounds the simulated work inside a critical section.
const maxDwell = 20 * time.Millisecond

// maxIterations bounds a worker's loop in count; the campaign's context
// bounds it in time long before.
const maxIterations = 1 << 20

// paths are the znodes of one campaign.
type paths struct {
	root    string   // everything below it belongs to the campaign
	lock    string   // the lock's (or semaphore's, or queue's lock) path
	nodes   []string // the parents of the contenders' nodes: none may outlive the clients
	nested  bool     // the contenders' nodes are a level deeper, in children of nodes (a barrier's rounds)
	lasting string   // the name of a persistent contenders' node (a barrier's ready node): no session's end removes it
	counter string   // decimal counter
	fence   string   // decimal highest fencing token that has written
	acks    string   // one persistent child per applied write
	long    string   // the counter campaign's DistributedAtomicLong
	count   string   // the counter campaign's SharedCount
	queue   string   // the queue campaign's DistributedQueue ("" for the other kinds)
}

func newPaths(kind LockKind) paths {
	root := "/campaign/" + kind.String()
	p := paths{
		root:    root,
		lock:    root + "/lock",
		counter: root + "/counter",
		fence:   root + "/fence",
		acks:    root + "/acks",
		long:    root + "/long",
		count:   root + "/count",
	}
	p.nodes = []string{p.lock}
	switch {
	case kind.leases():
		p.nodes = []string{p.lock + "/leases", p.lock + "/locks"}
	case kind == Cache:
		p.nodes = []string{root + "/" + cacheTree + "/" + cacheLive}
	case kind == Barrier:
		p.nested, p.lasting = true, barrierReady
	case kind == Queue:
		p.queue, p.lock = root+"/queue", root+"/queue-locks"
		p.nodes = []string{p.lock}
	}
	return p
}

// expires reports whether node, left by the contenders, goes once the
// sessions the clients abandoned expire (the final state awaits that).
func (p paths) expires(node string) bool {
	return p.lasting == "" || path.Base(node) != p.lasting
}

// ackName names the acknowledgement node a write creates in its transaction,
// so that a write whose reply was lost can be told from one that never applied.
func ackName(client, seq int) string { return fmt.Sprintf("c%d-%07d", client, seq) }

// ack is the content of an acknowledgement node: the writer's token and the
// counter value it wrote.
type ack struct {
	Client, Seq  int
	Token, Value int64
}

func parseAck(name string, data []byte) (ack, error) {
	var a ack
	if _, err := fmt.Sscanf(name, "c%d-%d", &a.Client, &a.Seq); err != nil {
		return a, fmt.Errorf("acknowledgement node name %q: %w", name, err)
	}
	if _, err := fmt.Sscanf(string(data), "%d %d", &a.Token, &a.Value); err != nil {
		return a, fmt.Errorf("acknowledgement node %q data %q: %w", name, data, err)
	}
	return a, nil
}

// worker is one client's loop over the lock.
type worker struct {
	id        int
	client    *framework.Client
	exclusive *locks.InterProcessMutex
	shared    *locks.InterProcessMutex // nil for the mutex campaign
	leaser    leaser                   // the semaphore; nil for the locks
	elector   elector                  // the election; nil for the locks
	counters  *counters                // the counter campaign's values
	discovery *discoverer              // the discovery campaign's registrations and cache
	cacher    *cacher                  // the cache campaign's cache
	barrier   *barrierMember           // the barrier campaign's member
	queuer    *queuer                  // the queue campaign's producer or consumer
	paths     paths
	clock     clock
	history   *recorder
	holding   *atomic.Bool // set while inside the critical section, for the nemesis to aim at
	rng       *rand.Rand   // draws the dwell; used by this worker only
	maxDwell  time.Duration

	acquireWait time.Duration // TryAcquire's bound, so a stalled worker keeps looping
	opTimeout   time.Duration // bounds the work inside one hold
	release     time.Duration // bounds Release
	stopOnLost  bool          // end the work inside a hold as soon as its Lost closes
}

func newWorker(id int, c *framework.Client, cfg Config, p paths, clk clock, h *recorder, holding *atomic.Bool, churn *churnGate, rounds *roundGate) *worker {
	w := &worker{
		id: id, client: c, paths: p, clock: clk, history: h, holding: holding,
		rng:         rand.New(rand.NewPCG(cfg.Seed, uint64(id))),
		maxDwell:    maxDwell,
		acquireWait: 2 * cfg.SessionTimeout,
		opTimeout:   4 * cfg.SessionTimeout,
		release:     2 * cfg.SessionTimeout,
	}
	switch cfg.Kind {
	case ReadWriteLock:
		rw := built(locks.NewInterProcessReadWriteLock(c, p.lock))
		w.exclusive, w.shared = rw.WriteLock(), rw.ReadLock()
	case Semaphore, SemaphoreMutex:
		w.leaser = newLeaser(cfg.Kind, c, p.lock, cfg.MaxLeases)
	case ElectionLatch, ElectionSelector:
		w.elector = newElector(cfg.Kind, c, p.lock, fmt.Sprintf("c%d", id))
	case Counter:
		cs, err := newCounters(id, c, p, w.acquireWait)
		if err != nil {
			panic(fmt.Sprintf("campaign: counters of client %d: %v", id, err)) // the paths are the campaign's own, valid
		}
		w.counters = cs
	case TTLMutexLock:
		w.exclusive, w.release, w.stopOnLost = newTTLMutex(c, p.lock), ttlRelease, true
	case Discovery:
		dc, err := newDiscoverer(id, c, p, churn)
		if err != nil {
			panic(fmt.Sprintf("campaign: discovery of client %d: %v", id, err)) // the paths are the campaign's own, valid
		}
		w.discovery = dc
	case Cache:
		cc, err := newCacher(id, c, p, churn, func(what string) { h.add(eventsRecord(id, clk.now(), what)) })
		if err != nil {
			panic(fmt.Sprintf("campaign: cache of client %d: %v", id, err)) // the paths are the campaign's own, valid
		}
		w.cacher = cc
	case Barrier:
		w.barrier = newBarrierMember(cfg.Clients, rounds, cfg.SessionTimeout)
	case Queue:
		w.queuer = newQueuer(w)
	default:
		w.exclusive = built(locks.NewInterProcessMutex(c, p.lock))
	}
	return w
}

// modeFor alternates writes and reads in the read/write campaign.
func (w *worker) modeFor(seq int) Mode {
	if w.shared != nil && seq%2 == 1 {
		return Shared
	}
	return Exclusive
}

func (w *worker) run(ctx context.Context) {
	switch {
	case w.leaser != nil:
		w.runLeases(ctx)
		return
	case w.elector != nil:
		w.runElection(ctx)
		return
	case w.counters != nil:
		w.runCounters(ctx)
		return
	case w.discovery != nil:
		w.runDiscovery(ctx)
		return
	case w.cacher != nil:
		w.runCache(ctx)
		return
	case w.barrier != nil:
		w.runBarrier(ctx)
		return
	case w.queuer != nil:
		w.runQueue(ctx)
		return
	}
	for seq := 0; seq < maxIterations && ctx.Err() == nil; seq++ {
		mode := w.modeFor(seq)
		m := w.exclusive
		if mode == Shared {
			m = w.shared
		}
		ok, err := m.TryAcquire(ctx, w.acquireWait)
		if err != nil {
			// The connection is down or the attempt failed; try again soon.
			sleepCtx(ctx, 20*time.Millisecond)
			continue
		}
		if ok {
			w.hold(ctx, seq, mode, m)
		}
	}
}

// hold runs one critical section under m and records it.
func (w *worker) hold(ctx context.Context, seq int, mode Mode, m *locks.InterProcessMutex) {
	lost := m.Lost()
	w.section(ctx, Hold{Client: w.id, Seq: seq, Mode: mode}, lost, func(ctx context.Context, rec *Hold) {
		if mode == Exclusive {
			w.write(ctx, m.FencingToken(), lost, rec)
		} else {
			w.read(ctx, rec)
		}
	}, m.Release)
}

// section runs work inside a critical section whose Lost channel is lost,
// then release, and records the hold: when it was entered and left, and when
// the worker first saw Lost.
func (w *worker) section(ctx context.Context, rec Hold, lost <-chan struct{}, work func(context.Context, *Hold), release func(context.Context) error) {
	// A hold whose Lost was closed when Acquire returned (say, lost while
	// Acquire finished its bookkeeping in a partition) is never clean: its
	// first sight of Lost is at Enter, not when the watcher below runs.
	lostBefore := isClosed(lost)
	rec.Enter, rec.Write, rec.LostAt = w.clock.now(), never, never
	releasing := make(chan struct{})
	lostAt := make(chan time.Duration, 1)
	go func() {
		select {
		case <-lost:
			lostAt <- w.clock.now()
		case <-releasing:
			if isClosed(lost) { // both ready: Lost came first
				lostAt <- w.clock.now()
			} else {
				lostAt <- never
			}
		}
	}()

	w.holding.Store(true)
	opCtx, cancel := context.WithTimeout(ctx, w.opTimeout)
	if w.stopOnLost {
		go func() {
			select {
			case <-lost:
				cancel()
			case <-opCtx.Done():
			}
		}()
	}
	work(opCtx, &rec)
	cancel()

	rec.Exit = w.clock.now()
	rec.LostAtExit = isClosed(lost)
	w.holding.Store(false)
	close(releasing)
	switch rec.LostAt = <-lostAt; {
	case lostBefore:
		rec.LostAt = rec.Enter
	case rec.LostAtExit && (rec.LostAt == never || rec.LostAt > rec.Exit):
		rec.LostAt = rec.Exit // seen by Exit at the latest
	case !rec.LostAtExit && rec.LostAt > rec.Exit:
		rec.LostAt = never // closed after Exit: the hold was clean throughout
	}

	relCtx, relCancel := context.WithTimeout(context.WithoutCancel(ctx), w.release)
	if err := release(relCtx); err != nil && rec.Err == "" {
		rec.Err = "release: " + err.Error()
	}
	relCancel()
	w.history.add(rec)
}

// write is the fenced increment with the hold's fencing token: read the
// fence and the counter with their versions; if token is above the fence,
// set both (and create our acknowledgement node) in one transaction
// conditional on both versions.
func (w *worker) write(ctx context.Context, token int64, lost <-chan struct{}, rec *Hold) {
	rec.Token = token
	if rec.Token == 0 {
		rec.Err = "no fencing token"
		return
	}
	fence, fenceStat, err := ensemble.ReadInt(ctx, w.client, w.paths.fence)
	if err != nil {
		rec.Err = err.Error()
		return
	}
	counter, counterStat, err := ensemble.ReadInt(ctx, w.client, w.paths.counter)
	if err != nil {
		rec.Err = err.Error()
		return
	}
	rec.Fence, rec.Counter = fence, counter
	w.dwell(ctx)
	rec.Write = w.clock.now()
	rec.LostAtWrite = isClosed(lost)
	if rec.Token <= fence {
		rec.Outcome = Stale
		return
	}
	err = ensemble.FencedWrite(ctx, w.client, w.paths.fence, w.paths.counter, w.paths.acks+"/"+ackName(w.id, rec.Seq),
		rec.Token, fenceStat, counter, counterStat)
	switch {
	case err == nil:
		rec.Outcome = Accepted
	case errors.Is(err, zk.ErrBadVersion):
		// Possibly our own earlier attempt, applied with its reply lost:
		// the acknowledgement node decides.
		rec.Outcome = Conflict
		rec.Err = err.Error()
	default:
		rec.Outcome = Unknown
		rec.Err = err.Error()
	}
}

// read is a reader's work under the read lock.
func (w *worker) read(ctx context.Context, rec *Hold) {
	counter, _, err := ensemble.ReadInt(ctx, w.client, w.paths.counter)
	if err != nil {
		rec.Err = err.Error()
		return
	}
	rec.Counter = counter
	w.dwell(ctx)
}

// dwell is the work a holder does between reading and writing: it widens
// the window in which a fault can strike a holder mid-section.
func (w *worker) dwell(ctx context.Context) {
	if w.maxDwell > 0 {
		sleepCtx(ctx, time.Duration(w.rng.Int64N(int64(w.maxDwell))))
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
