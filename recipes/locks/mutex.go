package locks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// lockNameMutex is the lock name of InterProcessMutex nodes, as in Curator.
const lockNameMutex = "lock-"

// InterProcessMutex is a re-entrant mutual exclusion lock that works across
// processes and languages: it speaks Curator's protocol, so a Go and a Java
// process on the same path exclude each other. Reentrancy is per handle:
// acquiring again through the same handle nests, so goroutines that must
// exclude each other use handles of their own. A handle is safe for
// concurrent use.
type InterProcessMutex struct {
	li   *lockInternals
	data []byte
	met  *lockMetrics

	// beforeAcquire, when set, may refuse a first acquisition (the read/write
	// lock refuses an upgrade with it).
	beforeAcquire func() error
	// keepParticipant, when set, picks the contenders that ParticipantNodes
	// reports by their full path (the two locks of a read/write lock share
	// one set of contenders but each reports only its own nodes).
	keepParticipant func(nodePath string) bool

	mu        sync.Mutex
	count     int           // reentrant holds; 0 when not held
	current   *hold         // non-nil while held
	acquiring chan struct{} // closed when the first acquisition in flight ends
	revocable func()
}

// NewInterProcessMutex returns a mutex on path, a ZooKeeper path under which
// the contenders' nodes are created. It makes no network call; a nil client,
// an invalid path (the root "/" included), a nil driver or a nil option is
// reported here, with an error matching ErrInvalidArgument.
func NewInterProcessMutex(c *framework.Client, path string, opts ...MutexOption) (*InterProcessMutex, error) {
	if err := validateLock(c, path); err != nil {
		return nil, err
	}
	cfg, err := newMutexConfig(fmt.Sprintf("mutex %q", path), opts)
	if err != nil {
		return nil, err
	}
	if err := validateDriver(cfg.driver, path); err != nil {
		return nil, err
	}
	cfg.recipe = recipeMutex
	return newMutex(c, path, lockNameMutex, 1, cfg), nil
}

// newMutex builds a mutex of a validated client, path and config.
func newMutex(c *framework.Client, path, lockName string, maxLeases int, cfg mutexConfig) *InterProcessMutex {
	return &InterProcessMutex{
		li:   newLockInternals(c, cfg.driver, path, lockName, maxLeases),
		data: cfg.data,
		met:  newLockMetrics(c, cfg.recipe),
	}
}

// Acquire blocks until this handle holds the lock or ctx is done. If ctx ends
// first, the contender's node is deleted before Acquire returns (or, when the
// connection is down, by a guaranteed delete in the background), so a
// cancelled waiter never blocks others.
func (m *InterProcessMutex) Acquire(ctx context.Context) error {
	_, err := m.acquire(ctx, -1)
	return err
}

// TryAcquire is Acquire that gives up after wait and then reports false with
// a nil error; a wait of zero makes a single attempt. The wait bounds the
// whole call, connecting and retries included: it returns at the end of its
// wait, but that requests on a live connection get a second more to bring
// their replies (which lets a wait of zero make its attempt), and deleting
// its node a grace (an eighth of the session timeout, at most a second)
// before it goes on in the background. When the wait ends while it waits
// for a connection, a reply or a retry rather than for the lock, it reports
// false with an error that says so and matches context.DeadlineExceeded
// (and framework.ErrNotConnected when it waited for a connection). An error
// is also returned when ctx ends or the attempt fails.
func (m *InterProcessMutex) TryAcquire(ctx context.Context, wait time.Duration) (bool, error) {
	if wait < 0 {
		return false, errorf("%w: TryAcquire %s: negative wait %v", ErrInvalidArgument, m.li.basePath, wait)
	}
	return m.acquire(ctx, wait)
}

func (m *InterProcessMutex) acquire(ctx context.Context, wait time.Duration) (bool, error) {
	if ctx == nil {
		return false, errorf("%w: acquire %s: nil context", ErrInvalidArgument, m.li.basePath)
	}
	tw := newTimedWait(ctx, m.li.client, "acquire "+m.li.basePath, wait)
	defer tw.stop()
	return m.acquireWithin(tw)
}

// acquireWithin acquires the lock within tw, the bound of the call it is
// part of.
func (m *InterProcessMutex) acquireWithin(tw *timedWait) (bool, error) {
	for {
		m.mu.Lock()
		if m.count > 0 {
			m.count++
			m.mu.Unlock()
			return true, nil
		}
		if inFlight := m.acquiring; inFlight != nil {
			// Another goroutine is acquiring through this handle: share its result.
			m.mu.Unlock()
			select {
			case <-inFlight:
				continue
			case <-tw.over:
				return false, nil
			case <-tw.ctx.Done():
				return false, tw.ctxErr()
			}
		}
		if m.beforeAcquire != nil {
			if err := m.beforeAcquire(); err != nil {
				m.mu.Unlock()
				return false, err
			}
		}
		done := make(chan struct{})
		m.acquiring = done
		m.mu.Unlock()

		began := time.Now()
		n, held, err := m.li.attempt(tw, m.data)
		m.met.acquisition(began, held, err)

		m.mu.Lock()
		if held {
			if n.waited {
				m.met.handoffs.Add(1)
			}
			m.count = 1
			m.current = newHold(m.li, n, m.met)
			if m.revocable != nil {
				m.current.watchRevocation(m.revocationOf(m.current))
			}
		}
		m.acquiring = nil
		close(done)
		m.mu.Unlock()
		return held, err
	}
}

// Release undoes one Acquire. The outermost Release deletes the lock node
// (guaranteed: retried in the background if the connection is down) and
// closes the hold's Lost channel. It returns an error matching ErrNotOwner
// when this handle does not hold the lock.
func (m *InterProcessMutex) Release(ctx context.Context) error {
	return m.release(ctx, withGrace)
}

// release is Release whose clean-up, should ctx end, gets grace g.
func (m *InterProcessMutex) release(ctx context.Context, g grace) error {
	m.mu.Lock()
	if m.count == 0 {
		m.mu.Unlock()
		return errorf("%w: %s", ErrNotOwner, m.li.basePath)
	}
	m.count--
	if m.count > 0 {
		m.mu.Unlock()
		return nil
	}
	h := m.current
	m.current = nil
	m.mu.Unlock()

	h.end()
	m.met.hold.Observe(framework.Since(h.began))
	if _, err := m.li.release(ctx, h.node, true, g); err != nil {
		return errorf("release %s: %w", h.node.path, err)
	}
	return nil
}

// IsAcquiredInThisProcess reports whether this handle holds the lock.
func (m *InterProcessMutex) IsAcquiredInThisProcess() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.count > 0
}

// ParticipantNodes returns the full paths of all contenders' nodes, the
// holder first, in the order in which they will hold the lock (for fair
// drivers).
func (m *InterProcessMutex) ParticipantNodes(ctx context.Context) ([]string, error) {
	paths, err := m.li.participants(ctx)
	if err != nil || m.keepParticipant == nil {
		return paths, err
	}
	kept := paths[:0]
	for _, p := range paths {
		if m.keepParticipant(p) {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// LockPath returns the path of this handle's lock node while it holds the
// lock, and "" otherwise.
func (m *InterProcessMutex) LockPath() string {
	if h := m.held(); h != nil {
		return h.node.path
	}
	return ""
}

// FencingToken returns the creation zxid (czxid) of the node that marks this
// hold, read when the lock was taken, while the lock is held, and 0
// otherwise; it makes no request. Tokens of successive holds of one lock
// strictly increase across the ensemble, so a store that remembers the
// highest token it has seen can reject writes from a holder that lost the
// lock, whose token is older than its successor's.
func (m *InterProcessMutex) FencingToken() int64 {
	if h := m.held(); h != nil {
		return h.node.token
	}
	return 0
}

// Lost returns a channel that is closed when holding the lock is no longer
// certain: on Suspended under the client's standard error policy or on Lost
// under the session policy, when the lock node is found deleted or its driver
// gives it up (see NodeKeeper), when the client closes, and when the hold
// ends by Release. When nothing is held it returns a closed channel; each
// acquisition gets a new channel.
func (m *InterProcessMutex) Lost() <-chan struct{} {
	if h := m.held(); h != nil {
		return h.lost
	}
	return closedChan
}

// MakeRevocable registers fn to be called, once per hold and on a goroutine
// of its own, when another process asks this holder to release the lock (see
// AttemptRevoke). It applies to the current hold, if any, and to later ones;
// a later call replaces fn and nil removes it, so the fn called is the one
// registered when the request arrives. Watching costs one request per hold
// (and one more after each other change of the node's data), and stops with
// the hold or when the client closes.
func (m *InterProcessMutex) MakeRevocable(fn func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revocable = fn
	if m.current != nil && fn != nil {
		m.current.watchRevocation(m.revocationOf(m.current))
	}
}

// revocationOf returns what h's revocation watcher calls when the request
// comes: the handle's callback then, while h is still its hold.
func (m *InterProcessMutex) revocationOf(h *hold) func() func() {
	return func() func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.current != h {
			return nil
		}
		return m.revocable
	}
}

// certainNode returns this handle's lock node while it holds the lock with
// certainty: its Lost channel open and its session the client's current one.
func (m *InterProcessMutex) certainNode() (lockNode, bool) {
	h := m.held()
	if h == nil {
		return lockNode{}, false
	}
	h.check(m.li.client.State())
	select {
	case <-h.lost:
		return lockNode{}, false
	default:
		return h.node, true
	}
}

// client is the lock's client (for a multi-lock's rollback).
func (m *InterProcessMutex) client() *framework.Client { return m.li.client }

func (m *InterProcessMutex) held() *hold {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.current
}
