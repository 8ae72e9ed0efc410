package campaign

import (
	"context"
	"errors"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/campaign/internal/ensemble"
)

// elector wins one term of an election, waiting at most wait; ok is false
// (with a nil error) when the wait passed first. Each try joins the election
// with a new participant, so every term has a node and a token of its own.
type elector interface {
	tryLead(ctx context.Context, wait time.Duration) (t leadHold, ok bool, err error)
}

// leadHold is one term while it lasts: lost is the term's Done channel,
// token its fencing token, and stepDown ends it and leaves the election.
type leadHold struct {
	lost     <-chan struct{}
	token    int64
	stepDown func(context.Context) error
}

func newElector(kind LockKind, c *framework.Client, path, id string) elector {
	if kind == ElectionSelector {
		return selectorElector{c: c, path: path, id: id}
	}
	return latchElector{c: c, path: path, id: id}
}

type latchElector struct {
	c        *framework.Client
	path, id string
}

func (e latchElector) tryLead(ctx context.Context, wait time.Duration) (leadHold, bool, error) {
	l, err := leader.NewLeaderLatch(e.c, e.path, e.id)
	if err != nil {
		return leadHold{}, false, err
	}
	if err := l.Start(); err != nil {
		return leadHold{}, false, err
	}
	actx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	t, err := l.Await(actx)
	if err != nil {
		cctx, done := context.WithTimeout(context.WithoutCancel(ctx), wait)
		defer done()
		_ = l.Close(cctx)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return leadHold{}, false, nil
		}
		return leadHold{}, false, err
	}
	return leadHold{lost: t.Done(), token: t.Token, stepDown: l.Close}, true, nil
}

type selectorElector struct {
	c        *framework.Client
	path, id string
}

// tryLead runs a selector whose function hands its term to the worker and
// returns when the worker steps down or the term ends.
func (e selectorElector) tryLead(ctx context.Context, wait time.Duration) (leadHold, bool, error) {
	s, err := ensemble.StartSelector(e.c, e.path, e.id)
	if err != nil {
		return leadHold{}, false, err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case t := <-s.Terms:
		return leadHold{lost: t.Done(), token: t.Token, stepDown: s.StepDown}, true, nil
	case <-timer.C:
	case <-ctx.Done():
	}
	cctx, done := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer done()
	_ = s.StepDown(cctx)
	return leadHold{}, false, ctx.Err()
}

// runElection is a worker's loop over an election: win a term, do a fenced
// write with the term's token, step down.
func (w *worker) runElection(ctx context.Context) {
	for seq := 0; seq < maxIterations && ctx.Err() == nil; seq++ {
		t, ok, err := w.elector.tryLead(ctx, w.acquireWait)
		if err != nil {
			// The connection is down or the attempt failed; try again soon.
			sleepCtx(ctx, 20*time.Millisecond)
			continue
		}
		if ok {
			w.section(ctx, Hold{Client: w.id, Seq: seq, Mode: Exclusive}, t.lost, func(ctx context.Context, rec *Hold) {
				w.write(ctx, t.token, t.lost, rec)
			}, t.stepDown)
		}
	}
}
