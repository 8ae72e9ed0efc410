package leader

import (
	"context"
	"fmt"
	"sync"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/apply"
	"github.com/zkcurator/zkcurator/recipes/internal/lifecycle"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// LeadFunc is the work a LeaderSelector does while it leads. ctx is the
// term's context: it is cancelled the moment leadership is no longer
// certain, and the function must then stop and return. Leadership is given
// up when the function returns; a returned error is logged.
type LeadFunc func(ctx context.Context, term Term) error

// SelectorOption configures a LeaderSelector. An option only records its
// value; NewLeaderSelector checks them all.
type SelectorOption func(*selectorConfig)

type selectorConfig struct {
	autoRequeue bool
}

// WithAutoRequeue makes the selector queue again each time its function
// returns, as Curator's LeaderSelector.autoRequeue.
func WithAutoRequeue() SelectorOption { return func(c *selectorConfig) { c.autoRequeue = true } }

// AutoRequeue is WithAutoRequeue.
//
// Deprecated: use WithAutoRequeue, named as every other option.
func AutoRequeue() SelectorOption { return WithAutoRequeue() }

// LeaderSelector runs a function while this participant leads, with
// Curator's LeaderSelector protocol: leadership is an InterProcessMutex on
// the path whose "lock-" nodes hold the participants' ids, so Go and Java
// selectors on one path elect one leader among them. A LeaderSelector is
// safe for concurrent use.
type LeaderSelector struct {
	client      *framework.Client
	path        string
	id          string
	fn          LeadFunc
	autoRequeue bool
	mutex       *locks.InterProcessMutex
	met         *termMetrics
	what        string // names the selector in its errors

	mu     sync.Mutex
	life   lifecycle.Lifecycle // moved under mu
	stage  string              // what the loop is busy with, for Close's error
	queued bool                // another turn has been asked for
	kick   chan struct{}       // wakes the loop for a turn
	term   *term
	stop   context.CancelFunc
	done   chan struct{} // closed when the loop has ended
}

// NewLeaderSelector returns a selector for the participant id on path that
// runs fn while it leads, or an error matching ErrInvalidArgument that names
// the bad value: a nil client, an invalid path (the root included), an empty
// id, a nil function or a nil option. It makes no network call and starts
// nothing.
func NewLeaderSelector(c *framework.Client, path, id string, fn LeadFunc, opts ...SelectorOption) (*LeaderSelector, error) {
	if err := validate("selector", c, path, id); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: nil leader function for the selector at %q", ErrInvalidArgument, path)
	}
	var cfg selectorConfig
	if err := apply.Options(&cfg, opts, ErrInvalidArgument, fmt.Sprintf("the selector at %q", path)); err != nil {
		return nil, err
	}
	mutex, err := locks.NewInterProcessMutex(c, path, locks.WithLockData([]byte(id)))
	if err != nil {
		return nil, err
	}
	return &LeaderSelector{
		met:         newTermMetrics(c, "selector"),
		client:      c,
		path:        path,
		id:          id,
		fn:          fn,
		autoRequeue: cfg.autoRequeue,
		mutex:       mutex,
		what:        fmt.Sprintf("selector %q (%s)", path, id),
		life:        lifecycle.New(&lifeErrors),
		stage:       stageIdle,
		kick:        make(chan struct{}, 1),
		done:        make(chan struct{}),
	}, nil
}

// ID returns the participant id.
func (s *LeaderSelector) ID() string { return s.id }

// Path returns the election's path.
func (s *LeaderSelector) Path() string { return s.path }

// Start queues the selector for its first turn and returns at once. It
// returns ErrAlreadyStarted the second time, ErrClosed after Close and
// framework.ErrClosed once the client is closed (the selector is then not
// started).
func (s *LeaderSelector) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := start(&s.life, s.client, s.what); err != nil {
		return err
	}
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.requeueLocked()
	go s.run(ctx)
	return nil
}

// Requeue asks for another turn once the current one, if any, is over. It
// reports whether the request is new (false when a turn is already asked
// for), and ErrNotStarted or ErrClosed outside the selector's life or
// framework.ErrClosed once its client is closed.
func (s *LeaderSelector) Requeue() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := check(&s.life, s.client, s.what); err != nil {
		return false, err
	}
	return s.requeueLocked(), nil
}

func (s *LeaderSelector) requeueLocked() bool {
	if s.queued {
		return false
	}
	s.queued = true
	select {
	case s.kick <- struct{}{}:
	default:
	}
	return true
}

// HasLeadership reports whether the selector leads with certainty now: its
// function is running in a term that has not ended, through a lock node of
// the client's current session, on a connection in no error state of the
// client's error policy.
func (s *LeaderSelector) HasLeadership() bool {
	s.mu.Lock()
	t := s.term
	s.mu.Unlock()
	return t.certain(s.client)
}

// Participants returns the participants queued on the selector's path, the
// leader first, with the ids read from their nodes (Java selectors included).
func (s *LeaderSelector) Participants(ctx context.Context) ([]Participant, error) {
	nodes, err := s.mutex.ParticipantNodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("leader: participants of %s: %w", s.path, err)
	}
	return readParticipants(ctx, s.client, nodes)
}

// Leader returns the participant that leads on the selector's path, or an
// error matching ErrNoLeader when none is queued.
func (s *LeaderSelector) Leader(ctx context.Context) (Participant, error) {
	ps, err := s.Participants(ctx)
	if err != nil {
		return Participant{}, err
	}
	return firstParticipant(ps, s.path)
}

// Close ends the selector: a wait for leadership stops and leaves no node
// behind, a running function's context is cancelled with ErrClosed, and
// Close waits until the function has returned and the lock node is deleted,
// or until ctx ends (the node is then deleted when the function returns),
// with an error that says which of the two it was still waiting for. Close
// is idempotent: a second Close and a Close before Start (after which Start
// returns ErrClosed) return nil at once and do nothing.
func (s *LeaderSelector) Close(ctx context.Context) error {
	s.mu.Lock()
	_, was := s.life.Close()
	s.mu.Unlock()
	if was != lifecycle.Started {
		return nil
	}
	s.stop()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		stage := s.stage
		s.mu.Unlock()
		return fmt.Errorf("leader: close selector %q (%s): still waiting for %s: %w", s.path, s.id, stage, ctx.Err())
	}
}

// setStage records what the loop waits for next, for Close's error.
func (s *LeaderSelector) setStage(stage string) {
	s.mu.Lock()
	s.stage = stage
	s.mu.Unlock()
}
