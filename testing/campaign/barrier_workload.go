package campaign

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/barriers"
)

// targetBarrier marks a barrier campaign's record: one member's pass
// through one round's double barrier (an Increment hold, Accepted when
// both its Enter and its Leave succeeded).
const targetBarrier = "barrier"

// barrierReady is the child whose existence opens a double barrier: a
// persistent node, which only a Leave that finds every member gone
// deletes.
const barrierReady = "ready"

// maxStagger bounds the draw each member waits before it enters, so that
// the members begin entering at different times and a barrier that let one
// through before the last began has a window to be caught in.
const maxStagger = 30 * time.Millisecond

// BarrierRound is one member's pass through one round: when it called Enter
// and when Enter returned, when it called Leave and when Leave returned
// (never for a call not made or that failed), and the errors.
type BarrierRound struct {
	EnterAt, Entered, LeaveAt, Left time.Duration
	EnterErr, LeaveErr              string
	// EnterLost and LeaveLost mark a call that failed with
	// barriers.ErrMembershipLost: the member's node stopped counting.
	EnterLost, LeaveLost bool
}

// String is the round's part of a history line.
func (r *BarrierRound) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "barrier enter@%s entered@%s leave@%s left@%s", fmtDur(r.EnterAt), fmtDur(r.Entered), fmtDur(r.LeaveAt), fmtDur(r.Left))
	if r.EnterErr != "" {
		fmt.Fprintf(&b, " enter_lost=%t enter_err=%q", r.EnterLost, r.EnterErr)
	}
	if r.LeaveErr != "" {
		fmt.Fprintf(&b, " leave_lost=%t leave_err=%q", r.LeaveLost, r.LeaveErr)
	}
	return b.String()
}

// barrierMember is one worker's part of the barrier campaign.
type barrierMember struct {
	members int        // the barrier's memberQty: every worker
	rounds  *roundGate // shared by every worker of the campaign
	wait    time.Duration
}

// runBarrier is a worker's loop: every round, once every worker has
// finished the round before (roundGate), it waits a drawn moment, enters
// the round's own double barrier, dwells, and leaves. Each round has a
// path of its own, so that a member still leaving one round never meets a
// member entering the next: Curator's double barrier is not made to be
// entered again while members of the last pass are still leaving. A round
// once begun is carried out whatever ctx does (its calls are bounded by
// their waits), so that no member is left waiting for one that stopped.
func (w *worker) runBarrier(ctx context.Context) {
	bm := w.barrier
	for round := 0; round < maxIterations && bm.rounds.await(ctx); round++ {
		w.barrierRound(context.WithoutCancel(ctx), round)
	}
}

// barrierRound is one worker's pass through round's barrier, recorded.
func (w *worker) barrierRound(ctx context.Context, round int) {
	bm := w.barrier
	b := built(barriers.NewDistributedDoubleBarrier(w.client, framework.JoinPath(w.paths.lock, fmt.Sprintf("r%06d", round)), bm.members))
	r := &BarrierRound{Entered: never, LeaveAt: never, Left: never}
	rec := Hold{Client: w.id, Seq: round, Mode: Increment, Target: targetBarrier, Write: never, LostAt: never, Outcome: Unknown, Barrier: r}
	sleepCtx(ctx, time.Duration(w.rng.Int64N(int64(maxStagger))))
	r.EnterAt = w.clock.now()
	rec.Enter = r.EnterAt
	defer func() {
		rec.Exit = w.clock.now()
		w.history.add(rec)
	}()
	ectx, cancel := context.WithTimeout(ctx, bm.wait)
	err := b.Enter(ectx)
	cancel()
	if err != nil {
		r.EnterErr, r.EnterLost, rec.Err = err.Error(), errors.Is(err, barriers.ErrMembershipLost), "enter: "+err.Error()
		return
	}
	r.Entered = w.clock.now()
	w.holding.Store(true)
	defer w.holding.Store(false)
	w.dwell(ctx)
	lctx, cancel := context.WithTimeout(ctx, bm.wait)
	defer cancel()
	r.LeaveAt = w.clock.now()
	err = b.Leave(lctx)
	if err != nil {
		r.LeaveErr, r.LeaveLost, rec.Err = err.Error(), errors.Is(err, barriers.ErrMembershipLost), "leave: "+err.Error()
		return
	}
	r.Left = w.clock.now()
	rec.Outcome = Accepted
}

// roundGate starts the barrier campaign's rounds: a round begins for every
// worker at once, when the last one has finished the round before. It is
// what keeps the workers on one round's path; the barrier itself is what
// the campaign checks within a round.
type roundGate struct {
	n int

	mu      sync.Mutex
	arrived int
	open    chan struct{} // closed when the round the arrivals wait for begins
	stopped bool          // a worker gave up waiting: no round begins again
}

func newRoundGate(n int) *roundGate { return &roundGate{n: n, open: make(chan struct{})} }

// await reports true when the next round begins for every worker, or
// false once ctx has ended (then no further round begins for anyone).
func (g *roundGate) await(ctx context.Context) bool {
	g.mu.Lock()
	if g.stopped || ctx.Err() != nil {
		g.stopped = true
		g.mu.Unlock()
		return false
	}
	open := g.open
	if g.arrived++; g.arrived == g.n {
		g.arrived, g.open = 0, make(chan struct{})
		close(open)
		g.mu.Unlock()
		return true
	}
	g.mu.Unlock()
	select {
	case <-open:
		return true
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if isClosed(open) {
		return true // the round began as ctx ended: the others go through it too
	}
	g.stopped = true
	return false
}

// barrierWait bounds a member's Enter and its Leave: long enough that the
// others wait out a member whose link was suspended or whose member
// restarted, not so long that a member whose session ended stalls the
// campaign.
func barrierWait(sessionTimeout time.Duration) time.Duration { return 3 * sessionTimeout }

// newBarrierMember is worker's part of a barrier of members.
func newBarrierMember(members int, rounds *roundGate, sessionTimeout time.Duration) *barrierMember {
	return &barrierMember{members: members, rounds: rounds, wait: barrierWait(sessionTimeout)}
}

// barrierRoundOf parses a barrier node's round ("/…/r000012/ready" is
// round 12), or returns -1.
func barrierRoundOf(node string) int {
	parts := strings.Split(node, "/")
	if len(parts) < 2 {
		return -1
	}
	var round int
	if _, err := fmt.Sscanf(parts[len(parts)-2], "r%d", &round); err != nil {
		return -1
	}
	return round
}
