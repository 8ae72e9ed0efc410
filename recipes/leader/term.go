package leader

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// Term is one stretch of leadership, or, with Leader false, the news that
// leadership has ended. A term's context is cancelled the moment leadership
// is no longer certain; context.Cause tells why (ErrLeadershipLost, ErrClosed
// or ErrTermEnded).
type Term struct {
	// Leader is true for a term and false for the change that reports the
	// end of leadership on the Leadership channel.
	Leader bool
	// Token is the fencing token of the term: the creation zxid (czxid) of
	// the node that leads. Tokens strictly increase from term to term across
	// all participants, so a store that remembers the highest token it has
	// seen can refuse a deposed leader's late writes. 0 when Leader is false.
	Token int64
	// Node is the full path of the node that leads.
	Node string

	ctx context.Context
}

// Context returns a context that is cancelled when the term ends; for a
// Term that is not a leader's it is already cancelled.
func (t Term) Context() context.Context {
	if t.ctx == nil {
		return endedCtx
	}
	return t.ctx
}

// Done is Context().Done().
func (t Term) Done() <-chan struct{} { return t.Context().Done() }

// endedCtx is the context of a Term that leads nothing.
var endedCtx = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(fmt.Errorf("%w: not the leader", ErrTermEnded))
	return ctx
}()

// term is a Term together with the function that ends it.
type term struct {
	Term
	owner  framework.Session // the session that owns the leading node
	cancel context.CancelCauseFunc
	began  time.Time
	met    *termMetrics
	ended  sync.Once

	stepped     chan struct{} // closed by stepDown: the term's work has stopped
	steppedOnce sync.Once
}

// newTerm begins a term through node, owned by session owner, with token.
func newTerm(node string, owner framework.Session, token int64, met *termMetrics) *term {
	ctx, cancel := context.WithCancelCause(context.Background())
	met.begin()
	return &term{Term: Term{Leader: true, Token: token, Node: node, ctx: ctx}, owner: owner, cancel: cancel, began: time.Now(), met: met, stepped: make(chan struct{})}
}

// live reports whether the term has not ended.
func (t *term) live() bool { return t != nil && t.ctx.Err() == nil }

// certain reports whether t leads with certainty for client c now: live,
// through a node of c's current session, on a connection in no error state
// of c's error policy.
func (t *term) certain(c *framework.Client) bool {
	return t.live() && t.owner.IsCurrent() && !c.ErrorPolicy().IsErrorState(c.State())
}

// end ends the term with cause; later calls keep the first cause.
func (t *term) end(cause error) {
	t.cancel(cause)
	t.ended.Do(func() { t.met.end(t.began) })
}

// stepDown records that the term's work has stopped.
func (t *term) stepDown() { t.steppedOnce.Do(func() { close(t.stepped) }) }

// lost is the cause of a term that ended because leadership was no longer
// certain, for the reason why.
func lost(why string) error { return fmt.Errorf("%w: %s", ErrLeadershipLost, why) }
