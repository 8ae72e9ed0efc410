package leader

import (
	"context"
	"fmt"
	"sync"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/apply"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
)

// latchName is the name of LeaderLatch nodes, as in Curator.
const latchName = "latch-"

// CloseMode says whether closing a LeaderLatch reports the end of its
// leadership on the Leadership channel, as Curator's LeaderLatch.CloseMode.
// Either way a term's context is cancelled by Close.
type CloseMode int

const (
	// CloseSilent closes the Leadership channel without a last change
	// (Curator's SILENT, the default).
	CloseSilent CloseMode = iota
	// CloseNotifyLeader sends a change with Leader false before closing the
	// Leadership channel when the latch led (Curator's NOTIFY_LEADER).
	CloseNotifyLeader
)

// LatchOption configures a LeaderLatch. An option only records its value;
// NewLeaderLatch checks them all.
type LatchOption func(*latchConfig)

type latchConfig struct {
	mode           CloseMode
	manualStepDown bool
}

// WithCloseMode sets what Close reports on the Leadership channel: one of
// CloseSilent (the default) and CloseNotifyLeader.
func WithCloseMode(m CloseMode) LatchOption { return func(c *latchConfig) { c.mode = m } }

// WithManualStepDown makes the latch keep its node when a term ends, and not
// queue again, until StepDown says that the term's work has stopped (or the
// latch is closed). No other participant leads meanwhile, unless the
// session that owns the node ends. Use it when the work of a term cannot
// stop the moment its context is cancelled.
func WithManualStepDown() LatchOption { return func(c *latchConfig) { c.manualStepDown = true } }

// LeaderLatch takes part in an election on a path with Curator's LeaderLatch
// protocol: each participant queues a protected EPHEMERAL_SEQUENTIAL
// "latch-" node holding its id, the lowest node leads, and every other
// participant watches the node just before its own. Go and Java latches on
// one path elect one leader among them. A LeaderLatch is safe for concurrent
// use.
type LeaderLatch struct {
	client *framework.Client
	path   string
	id     string
	mode   CloseMode
	manual bool // WithManualStepDown
	met    *termMetrics
	what   string // names the latch in its errors

	mu            sync.Mutex
	life          lifecycle.Lifecycle // moved under mu
	node          string              // our latch node, "" when none
	owner         framework.Session   // the session that owns node
	term          *term               // the current term, nil when not leading
	last          *term               // the latest term, ended or not, for StepDown
	changed       chan struct{}
	changes       chan Term
	changesClosed bool
	wake          chan struct{} // a connection state change, for the loop
	stop          context.CancelFunc
	done          chan struct{} // closed when the loop has ended
	unlisten      func()
}

// NewLeaderLatch returns a latch for the participant id on path, or an
// error matching ErrInvalidArgument that names the bad value: a nil client,
// an invalid path (the root included), an empty id, a nil option or an
// unknown close mode. It makes no network call and starts nothing.
func NewLeaderLatch(c *framework.Client, path, id string, opts ...LatchOption) (*LeaderLatch, error) {
	if err := validate("latch", c, path, id); err != nil {
		return nil, err
	}
	var cfg latchConfig
	if err := apply.Options(&cfg, opts, ErrInvalidArgument, fmt.Sprintf("the latch at %q", path)); err != nil {
		return nil, err
	}
	if cfg.mode != CloseSilent && cfg.mode != CloseNotifyLeader {
		return nil, fmt.Errorf("%w: unknown close mode %d for the latch at %q", ErrInvalidArgument, cfg.mode, path)
	}
	return &LeaderLatch{
		met:     newTermMetrics(c, "latch"),
		client:  c,
		path:    path,
		id:      id,
		mode:    cfg.mode,
		manual:  cfg.manualStepDown,
		what:    fmt.Sprintf("latch %q (%s)", path, id),
		life:    lifecycle.New(&lifeErrors),
		changed: make(chan struct{}),
		changes: make(chan Term, 1),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}, nil
}

// ID returns the participant id.
func (l *LeaderLatch) ID() string { return l.id }

// Path returns the election's path.
func (l *LeaderLatch) Path() string { return l.path }

// Start queues the latch in the background and returns at once. It returns
// ErrAlreadyStarted the second time, ErrClosed after Close and
// framework.ErrClosed once the client is closed (the latch is then not
// started).
func (l *LeaderLatch) Start() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := start(&l.life, l.client, l.what); err != nil {
		return err
	}
	ctx, stop := context.WithCancel(context.Background())
	l.stop = stop
	l.unlisten = l.client.Listen(l.onState)
	go l.run(ctx)
	return nil
}

// Await blocks until the latch leads with certainty (as HasLeadership
// says) and returns the term. When ctx ends first it returns within a few
// milliseconds of ctx's deadline, whether or not the client is connected,
// with an error that matches ctx's error and says that it waited for
// leadership and whether the client was connected (the latch stays
// queued). It returns ErrClosed when the latch is closed, framework.ErrClosed
// when its client is, and ErrNotStarted before Start.
func (l *LeaderLatch) Await(ctx context.Context) (Term, error) {
	for {
		l.mu.Lock()
		t, err, changed := l.term, check(&l.life, l.client, l.what), l.changed
		l.mu.Unlock()
		switch {
		case err != nil:
			return Term{}, err
		case t.certain(l.client):
			return t.Term, nil
		}
		// A live term that is not certain ends soon: the state change or
		// the new session that makes it uncertain is on its way to onState.
		select {
		case <-changed:
		case <-l.client.Done():
		case <-ctx.Done():
			return Term{}, fmt.Errorf("leader: latch %q (%s): waiting for leadership%s: %w", l.path, l.id, connectionNote(l.client), ctx.Err())
		}
	}
}

// HasLeadership reports whether the latch leads with certainty now: a live
// term, through a node of the client's current session, on a connection in
// no error state of the client's error policy.
func (l *LeaderLatch) HasLeadership() bool {
	l.mu.Lock()
	t := l.term
	l.mu.Unlock()
	return t.certain(l.client)
}

// Leadership returns the channel of leadership changes: a Term with Leader
// true when a term begins, one with Leader false when it ends. The channel
// keeps only the latest change (a term missed by a slow reader has already
// ended, and its context says so), and is closed by Close.
func (l *LeaderLatch) Leadership() <-chan Term { return l.changes }

// Participants returns the participants queued on the latch's path, the
// leader first, with the ids read from their nodes (Java latches included).
func (l *LeaderLatch) Participants(ctx context.Context) ([]Participant, error) {
	nodes, err := listNodes(ctx, l.client, l.path, latchName)
	if err != nil {
		return nil, fmt.Errorf("leader: participants of %s: %w", l.path, err)
	}
	return readParticipants(ctx, l.client, nodes)
}

// Leader returns the participant that leads on the latch's path, or an
// error matching ErrNoLeader when none is queued.
func (l *LeaderLatch) Leader(ctx context.Context) (Participant, error) {
	ps, err := l.Participants(ctx)
	if err != nil {
		return Participant{}, err
	}
	return firstParticipant(ps, l.path)
}

// Close ends the latch: the current term's context is cancelled with
// ErrClosed, the loop stops and the latch node is deleted (guaranteed: if
// the connection is down the client keeps deleting it in the background;
// once the client is closed, the node goes with its session). The
// Leadership channel is closed as the close mode says. Close is idempotent:
// a second Close, or a Close before Start (after which Start returns
// ErrClosed), returns nil at once.
func (l *LeaderLatch) Close(ctx context.Context) error {
	l.mu.Lock()
	if _, was := l.life.Close(); was != lifecycle.Started {
		if !l.changesClosed {
			l.changesClosed = true
			close(l.changes)
		}
		l.mu.Unlock()
		return nil
	}
	l.stop()
	l.mu.Unlock()
	l.unlisten()
	<-l.done // every wait of the loop ends with its context

	l.mu.Lock()
	l.endTermLocked(ErrClosed, l.mode == CloseNotifyLeader)
	node := l.node
	l.node, l.owner = "", framework.Session{}
	l.changesClosed = true
	close(l.changes)
	l.broadcastLocked()
	l.mu.Unlock()
	if node == "" || clientClosed(l.client) {
		return nil
	}
	if err := l.client.Delete(ctx, node, framework.Guaranteed(), framework.Quietly()); err != nil {
		return fmt.Errorf("leader: close latch %q: delete %s: %w", l.path, node, err)
	}
	return nil
}

// StepDown ends term t if it is still live (with ErrTermEnded) and tells
// the latch that t's work has stopped: the latch gives up t's node and
// queues again with a new one. Under WithManualStepDown this is what lets a
// latch whose term ended leave its node; without it, a term's end gives the
// node up at once and StepDown only ends a live term. StepDown of a term
// that is not the latch's latest does nothing.
func (l *LeaderLatch) StepDown(t Term) {
	l.mu.Lock()
	last := l.last
	if last == nil || last.Node != t.Node || last.Token != t.Token || !t.Leader {
		l.mu.Unlock()
		return
	}
	if l.term == last {
		l.endTermLocked(ErrTermEnded, true)
	}
	l.mu.Unlock()
	last.stepDown()
}

// onState ends the term at once when the connection enters an error state
// of the client's error policy or the session is no longer the one that owns
// the leading node, then wakes the loop.
func (l *LeaderLatch) onState(s framework.ConnectionState) {
	l.mu.Lock()
	if t := l.term; t.live() {
		switch {
		case l.client.ErrorPolicy().IsErrorState(s):
			l.endTermLocked(lost("connection "+s.String()), true)
		case !t.owner.IsCurrent():
			l.endTermLocked(lost("the session that owns the latch node is gone"), true)
		}
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// endTermLocked ends the current term, if any, with cause and, when notify
// is set, reports the end on the Leadership channel.
func (l *LeaderLatch) endTermLocked(cause error, notify bool) {
	t := l.term
	if t == nil {
		return
	}
	l.term = nil
	t.end(cause)
	if notify {
		l.publishLocked(Term{})
	}
	l.broadcastLocked()
}

// publishLocked replaces the pending change, if any, with t.
func (l *LeaderLatch) publishLocked(t Term) {
	if l.changesClosed {
		return
	}
	select {
	case <-l.changes:
	default:
	}
	select {
	case l.changes <- t:
	default:
	}
}

// broadcastLocked wakes every Await.
func (l *LeaderLatch) broadcastLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}
