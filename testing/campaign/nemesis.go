package campaign

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// FaultKind is one of the faults a nemesis injects.
type FaultKind int

const (
	// ExpireClient pauses all of one client's traffic for longer than its
	// session timeout, so the ensemble expires its session.
	ExpireClient FaultKind = iota
	// SeverClient closes all of one client's connections; it reconnects at once.
	SeverClient
	// KillLeader kills the ensemble's leader and restarts it.
	KillLeader
	// KillFollower kills a follower and restarts it.
	KillFollower
	// SuspendClient pauses all of one client's traffic for less than its
	// session timeout: the client suspends and, usually, reconnects to the
	// same session.
	SuspendClient
	// PartitionLeader cuts the leader off from every follower, past the sync
	// limit, while it and its clients live on; aimed, it pins a client to the
	// leader's side.
	PartitionLeader
	// PartitionFollower cuts one follower off from the rest of the ensemble,
	// past the sync limit; aimed, it pins a client to the follower's side.
	PartitionFollower
	// PartitionBridge splits the ensemble so that one member sees both sides
	// and the other two do not see each other.
	PartitionBridge
	// PauseLeader stops the leader's process (SIGSTOP) past the sync limit and
	// continues it: it wakes believing it leads.
	PauseLeader
	// PauseFollower stops a follower's process past the sync limit and
	// continues it.
	PauseFollower
	// PauseClientProcess runs a contender as an OS process of its own,
	// stops it (SIGSTOP) past its session timeout and continues it: a holder
	// of the mutex, the TTL mutex or the write lock, or a leader, stopped
	// once it has read the fence, wakes believing it holds and writes with
	// its old fencing token; an incrementer of the counter campaign's long,
	// stopped with an increment in flight, finishes it with what it read
	// before. The mutex, TTL, read/write, election and counter campaigns only.
	PauseClientProcess

	numFaultKinds = iota
)

// String names the fault.
func (k FaultKind) String() string {
	switch k {
	case ExpireClient:
		return "expire-client"
	case SeverClient:
		return "sever-client"
	case KillLeader:
		return "kill-leader"
	case KillFollower:
		return "kill-follower"
	case SuspendClient:
		return "suspend-client"
	case PartitionLeader:
		return "partition-leader"
	case PartitionFollower:
		return "partition-follower"
	case PartitionBridge:
		return "partition-bridge"
	case PauseLeader:
		return "pause-leader"
	case PauseFollower:
		return "pause-follower"
	case PauseClientProcess:
		return "pause-client-process"
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// faultFields counts the faults by class for the CAMPAIGN line: kills of
// members, ensemble partitions, paused servers, paused client processes and
// cut client links (expired, suspended or severed).
func faultFields(faults []Fault) string {
	var kills, partitions, serverPauses, clientPauses, clientCuts int
	for _, f := range faults {
		switch f.Kind {
		case KillLeader, KillFollower:
			kills++
		case PartitionLeader, PartitionFollower, PartitionBridge:
			partitions++
		case PauseLeader, PauseFollower:
			serverPauses++
		case ExpireClient, SuspendClient, SeverClient:
			clientCuts++
		case PauseClientProcess:
			clientPauses++
		}
	}
	return fmt.Sprintf(" kills=%d partitions=%d server_pauses=%d client_pauses=%d client_cuts=%d",
		kills, partitions, serverPauses, clientPauses, clientCuts)
}

// Fault is one injected fault, as planned from the seed and as it happened.
type Fault struct {
	N      int
	Kind   FaultKind
	Client int           // the client partitioned, severed, suspended or pinned; -1 for none
	Member int           // the member killed, paused, cut off or bridging; -1 for client faults
	Hold   time.Duration // how long the fault lasted before it was healed
	Start  time.Duration // offsets from the campaign's start
	Healed time.Duration
	Note   string

	aim bool // retarget the client fault at a holder when it strikes
}

// String is one line of the nemesis log.
func (f *Fault) String() string {
	s := fmt.Sprintf("%9s fault #%d %s", fmtDur(f.Start), f.N, f.Kind)
	if f.Client >= 0 {
		s += fmt.Sprintf(" client=%d", f.Client)
	}
	if f.Member >= 0 {
		s += fmt.Sprintf(" member=%d", f.Member)
	}
	s += fmt.Sprintf(" hold=%s healed@%s", fmtDur(f.Hold), fmtDur(f.Healed))
	if f.Note != "" {
		s += " (" + f.Note + ")"
	}
	return s
}

// nemesis injects faults one at a time into a cluster and into the proxies
// of its clients, on a schedule drawn from a seed: every 1 to 3 s one fault,
// held for a drawn time and then healed. The kinds come in rounds, each a
// shuffle of all of them, so that even a short campaign meets every kind.
type nemesis struct {
	rng            *rand.Rand
	cluster        *zktest.Cluster
	proxies        [][]*zktest.Proxy // [client][member]
	holding        []atomic.Bool     // [client]: inside the critical section now
	sessionTimeout time.Duration
	clock          clock
	logf           func(format string, args ...any)

	down   []bool                // members killed and not yet restarted
	paused []bool                // members paused and not yet resumed
	parted bool                  // the ensemble is partitioned
	kinds  []FaultKind           // what a round is a shuffle of
	procs  *contenders           // for PauseClientProcess; nil when not drawn
	settle func(context.Context) // when set, run after each fault has healed
	bag    []FaultKind           // the kinds still to come in this round
}

func newNemesis(seed, stream uint64, cluster *zktest.Cluster, proxies [][]*zktest.Proxy, holding []atomic.Bool, sessionTimeout time.Duration, clk clock, logf func(string, ...any), kinds []FaultKind) *nemesis {
	return &nemesis{
		rng:            rand.New(rand.NewPCG(seed, stream^0x9e3779b97f4a7c15)),
		cluster:        cluster,
		proxies:        proxies,
		holding:        holding,
		sessionTimeout: sessionTimeout,
		clock:          clk,
		logf:           logf,
		down:           make([]bool, cluster.Size()),
		paused:         make([]bool, cluster.Size()),
		kinds:          kinds,
	}
}

// between draws a duration uniformly from [lo, hi).
func (n *nemesis) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(n.rng.Int64N(int64(hi-lo)))
}

// plan draws the next fault. Every fault draws the same values in the same
// order (and each round its shuffle), so the schedule depends on the seed
// and the stream alone.
func (n *nemesis) plan(num int) (gap time.Duration, f Fault) {
	gap = n.between(time.Second, 3*time.Second)
	if len(n.bag) == 0 {
		for _, k := range n.rng.Perm(len(n.kinds)) {
			n.bag = append(n.bag, n.kinds[k])
		}
	}
	kind := n.bag[0]
	n.bag = n.bag[1:]
	client := n.rng.IntN(len(n.proxies))
	aim := n.rng.IntN(4) != 0                // mostly strike a client inside the critical section, if any
	pick := n.rng.IntN(n.cluster.Size() - 1) // which follower, for KillFollower and the follower faults
	bridge := n.rng.IntN(n.cluster.Size())   // which member bridges, for PartitionBridge
	frac := n.rng.Float64()
	f = Fault{N: num, Kind: kind, Client: -1, Member: -1, aim: aim}
	lerp := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(frac*float64(hi-lo)) }
	st := n.sessionTimeout
	switch kind {
	case ExpireClient:
		// Past the session timeout by at least one server tick and the
		// time the ensemble needs to close the session.
		f.Client, f.Hold = client, lerp(st*8/5, st*12/5)
	case SuspendClient:
		// Past the client's read timeout (2/3 of the session timeout), so it
		// suspends, and short of the session timeout.
		f.Client, f.Hold = client, lerp(st*7/10, st*9/10)
	case SeverClient:
		f.Client = client
	case KillLeader:
		f.Hold = lerp(500*time.Millisecond, 2*time.Second)
	case KillFollower:
		f.Member, f.Hold = pick, lerp(500*time.Millisecond, 3*time.Second)
	case PauseClientProcess:
		// Past the session timeout and the time the others need to take the
		// mutex and write.
		f.Hold = lerp(st*2, st*3)
	default:
		n.planEnsemble(&f, client, pick, bridge, lerp)
	}
	return gap, f
}

// Run injects faults until budget has passed since it began or maxFaults
// were injected, then heals everything; the first atLeast faults are
// injected however long they take. It returns the faults, when the last one
// was healed (the time from which every client must make progress) and the
// first error that kept it from injecting or healing a fault. A fault under
// way when ctx ends is healed at once.
func (n *nemesis) run(ctx context.Context, budget time.Duration, atLeast, maxFaults int) (faults []Fault, healedAt time.Duration, err error) {
	deadline := n.clock.now() + budget
	for num := 1; num <= maxFaults; num++ {
		gap, f := n.plan(num)
		if num > atLeast && n.clock.now()+gap >= deadline {
			break
		}
		if !sleepCtx(ctx, gap) {
			break
		}
		if err = n.inject(ctx, &f); err != nil {
			f.Note = err.Error()
		}
		faults = append(faults, f)
		n.logf("nemesis: %s", f.String())
		if err != nil {
			break
		}
		if n.settle != nil {
			n.settle(ctx)
		}
	}
	if herr := n.healAll(); herr != nil {
		err = errors.Join(err, herr)
	}
	return faults, n.clock.now(), err
}

func (n *nemesis) inject(ctx context.Context, f *Fault) error {
	f.Start = n.clock.now()
	defer func() { f.Healed = n.clock.now() }()
	if f.Client >= 0 && f.aim {
		if c, ok := n.holder(f.Client); ok {
			f.Client, f.Note = c, "aimed at a holder"
		}
	}
	switch f.Kind {
	case ExpireClient, SuspendClient:
		for _, p := range n.proxies[f.Client] {
			p.Pause()
		}
		sleepCtx(ctx, f.Hold)
		for _, p := range n.proxies[f.Client] {
			p.Resume()
		}
	case SeverClient:
		for _, p := range n.proxies[f.Client] {
			p.Sever()
		}
	case KillLeader, KillFollower:
		leader, err := n.leader(ctx)
		if err != nil {
			return err
		}
		member := leader
		if f.Kind == KillFollower {
			member = followerAt(leader, f.Member)
		}
		f.Member = member
		if err := n.cluster.Kill(member); err != nil {
			return fmt.Errorf("kill member %d: %w", member, err)
		}
		n.down[member] = true
		sleepCtx(ctx, f.Hold)
		if err := n.cluster.Restart(member); err != nil {
			return fmt.Errorf("restart member %d: %w", member, err)
		}
		n.down[member] = false
	case PauseClientProcess:
		if n.procs == nil {
			return errNoContenders
		}
		if err := n.procs.freeze(ctx, f); err != nil {
			return err
		}
	default:
		if err := n.injectEnsemble(ctx, f); err != nil {
			return err
		}
	}
	f.Hold = n.clock.now() - f.Start
	return nil
}

// holder returns the first client at or after from (cyclically) that is
// inside the critical section, if any.
func (n *nemesis) holder(from int) (int, bool) {
	for i := range len(n.holding) {
		c := (from + i) % len(n.holding)
		if n.holding[c].Load() {
			return c, true
		}
	}
	return from, false
}

// leader waits for the ensemble to report a leader: after an earlier fault
// it may still be electing one. The wait is bounded by what a leader change
// may take on this machine (zktest.Cluster.ElectionBudget).
func (n *nemesis) leader(ctx context.Context) (int, error) {
	wait := n.cluster.ElectionBudget()
	deadline := time.Now().Add(wait)
	for {
		i, err := n.cluster.Leader()
		if err == nil {
			return i, nil
		}
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("no leader within %v: %w", wait, err)
		}
		if !sleepCtx(ctx, 100*time.Millisecond) {
			return -1, fmt.Errorf("no leader before the campaign ended: %w", err)
		}
	}
}

// healAll resumes every proxy and every paused member, heals the ensemble's
// partition and restarts every member still down.
func (n *nemesis) healAll() error {
	for _, ps := range n.proxies {
		for _, p := range ps {
			p.Resume()
		}
	}
	var errs []error
	if n.parted {
		n.cluster.Heal()
		n.parted = false
	}
	for i, p := range n.paused {
		if !p {
			continue
		}
		if err := n.cluster.Resume(i); err != nil {
			errs = append(errs, fmt.Errorf("heal: resume member %d: %w", i, err))
		}
		n.paused[i] = false
	}
	for i, down := range n.down {
		if !down {
			continue
		}
		if err := n.cluster.Restart(i); err != nil {
			errs = append(errs, fmt.Errorf("heal: restart member %d: %w", i, err))
			continue
		}
		n.down[i] = false
	}
	return errors.Join(errs...)
}

// sleepCtx waits for d and reports true, or reports false as soon as ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
