package locks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/owned"
	"github.com/zkcurator/zkcurator/retry"
)

// Node names of InterProcessSemaphoreV2, as in Curator.
const (
	semaphoreLocksName  = "locks"
	semaphoreLeasesName = "leases"
	leaseName           = "lease-"
)

// InterProcessSemaphoreV2 is a counting semaphore that works across processes
// and languages with Curator's protocol: at most maxLeases leases exist at
// once among all processes using the same path. Acquirers queue fairly on an
// InterProcessMutex at "<path>/locks"; each lease is a protected ephemeral
// sequential node "<path>/leases/_c_<uuid>-lease-<sequence>", granted once the
// leases path has no more than maxLeases children. A lease ends with
// Lease.Close or with the session that took it.
//
// The limit is fixed, or read from a shared count node (WithSharedCount) so
// that it can change at run time. A semaphore is safe for concurrent use;
// every acquisition is independent of the others.
type InterProcessSemaphoreV2 struct {
	client     *framework.Client
	path       string
	locksPath  string
	leasesPath string
	maxLeases  int    // the limit, or the seed of countPath
	countPath  string // "" when the limit is fixed
	data       []byte
	met        *lockMetrics
}

// SemaphoreOption configures an InterProcessSemaphoreV2.
type SemaphoreOption func(*semaphoreConfig)

type semaphoreConfig struct {
	countPath string
	countSet  bool
	data      []byte
}

// WithSharedCount makes the semaphore read its limit from the node at
// countPath, which holds a 4-byte big-endian integer as Curator's SharedCount
// writes it, so Java and Go processes (or an operator) can change the limit at
// run time. Waiters watch the node and re-check when it changes. If the node
// does not exist, the first acquisition creates it (persistent, with
// container parents) holding maxLeases, as a SharedCount seeded with it would.
func WithSharedCount(countPath string) SemaphoreOption {
	return func(c *semaphoreConfig) { c.countPath, c.countSet = countPath, true }
}

// WithLeaseData sets the data stored in each lease node (empty by default),
// for example to tell other processes who holds the leases; Curator's
// setNodeData.
func WithLeaseData(data []byte) SemaphoreOption {
	return func(c *semaphoreConfig) { c.data = append([]byte{}, data...) }
}

// NewInterProcessSemaphoreV2 returns a semaphore on path that grants at most
// maxLeases leases at once. It makes no network call; a nil client, an invalid
// path (the root "/" included), a maxLeases below 1, an invalid shared count
// path or a nil option is reported here, with an error matching
// ErrInvalidArgument.
func NewInterProcessSemaphoreV2(c *framework.Client, path string, maxLeases int, opts ...SemaphoreOption) (*InterProcessSemaphoreV2, error) {
	cfg := semaphoreConfig{data: []byte{}}
	for i, opt := range opts {
		if opt == nil {
			return nil, nilOption(fmt.Sprintf("semaphore %q", path), i, len(opts))
		}
		opt(&cfg)
	}
	if err := cfg.validate(c, path, maxLeases); err != nil {
		return nil, err
	}
	return &InterProcessSemaphoreV2{
		client:     c,
		path:       path,
		locksPath:  framework.JoinPath(path, semaphoreLocksName),
		leasesPath: framework.JoinPath(path, semaphoreLeasesName),
		maxLeases:  maxLeases,
		countPath:  cfg.countPath,
		data:       cfg.data,
		met:        newLockMetrics(c, recipeSemaphore),
	}, nil
}

// validate checks a semaphore's arguments and options, once all options ran.
func (cfg semaphoreConfig) validate(c *framework.Client, path string, maxLeases int) error {
	switch {
	case c == nil:
		return errorf("%w: nil client for semaphore %q", ErrInvalidArgument, path)
	case maxLeases < 1:
		return errorf("%w: semaphore %q: maxLeases %d is less than 1", ErrInvalidArgument, path, maxLeases)
	case cfg.countSet && maxLeases > math.MaxInt32:
		return errorf("%w: semaphore %q: maxLeases %d does not fit a shared count", ErrInvalidArgument, path, maxLeases)
	}
	if err := validateLockPath(path); err != nil {
		return err
	}
	if cfg.countSet {
		if err := framework.ValidatePath(cfg.countPath); err != nil {
			return errorf("%w: semaphore %q: shared count: %w", ErrInvalidArgument, path, err)
		}
	}
	return nil
}

// Acquire blocks until it holds one lease or ctx is done. A cancelled Acquire
// leaves no lease node behind, and returns promptly even in a partition: the
// deletes then go on in the background.
func (s *InterProcessSemaphoreV2) Acquire(ctx context.Context) (*Lease, error) {
	leases, err := s.acquire(ctx, 1, -1)
	if err != nil {
		return nil, err
	}
	return leases[0], nil
}

// AcquireN blocks until it holds qty leases or ctx is done; it returns all of
// them or none, returning the ones it took when it fails or is cancelled. It
// keeps the semaphore's lock until all qty are granted, so that acquirers of
// several leases cannot deadlock each other holding partial sets (Curator
// takes the lock once per lease). With a fixed
// limit, qty must be between 1 and maxLeases; with a shared count, a qty above
// the count waits until the count rises.
func (s *InterProcessSemaphoreV2) AcquireN(ctx context.Context, qty int) ([]*Lease, error) {
	return s.acquire(ctx, qty, -1)
}

// TryAcquire is AcquireN that gives up after wait and then returns nil leases
// and a nil error; a wait of zero makes a single attempt. The wait bounds the
// whole call as InterProcessMutex.TryAcquire's does, connecting and retries
// included.
func (s *InterProcessSemaphoreV2) TryAcquire(ctx context.Context, qty int, wait time.Duration) ([]*Lease, error) {
	if wait < 0 {
		return nil, errorf("%w: semaphore %s: TryAcquire: negative wait %v", ErrInvalidArgument, s.path, wait)
	}
	return s.acquire(ctx, qty, wait)
}

// ParticipantNodes returns the full paths of the lease nodes, granted or
// waiting, oldest first.
func (s *InterProcessSemaphoreV2) ParticipantNodes(ctx context.Context) ([]string, error) {
	children, _, err := s.client.Children(ctx, s.leasesPath)
	if errors.Is(err, zk.ErrNoNode) {
		return []string{}, nil
	}
	if err != nil {
		return nil, errorf("semaphore %s: %w", s.path, err)
	}
	names := SortedContenders(children, leaseName, StandardFixForSorting)
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = framework.JoinPath(s.leasesPath, n)
	}
	return paths, nil
}

// acquire takes qty leases; wait < 0 waits as long as ctx allows. A lease
// node that vanishes while it waits (its session expired, or someone deleted
// it) makes the whole acquisition start again, as long as the client's retry
// policy allows.
func (s *InterProcessSemaphoreV2) acquire(ctx context.Context, qty int, wait time.Duration) (leases []*Lease, err error) {
	switch {
	case ctx == nil:
		return nil, errorf("%w: semaphore %s: nil context", ErrInvalidArgument, s.path)
	case qty < 1:
		return nil, errorf("%w: semaphore %s: qty %d is less than 1", ErrInvalidArgument, s.path, qty)
	case s.countPath == "" && qty > s.maxLeases:
		return nil, errorf("%w: semaphore %s: qty %d exceeds maxLeases %d", ErrInvalidArgument, s.path, qty, s.maxLeases)
	}
	tw := newTimedWait(ctx, s.client, "semaphore "+s.path, wait)
	defer tw.stop()
	return s.acquireWithin(tw, qty)
}

// acquireWithin takes qty leases within tw, the bound of the call it is part
// of.
func (s *InterProcessSemaphoreV2) acquireWithin(tw *timedWait, qty int) (leases []*Lease, err error) {
	defer func(began time.Time) { s.met.acquisition(began, leases != nil, err) }(time.Now())
	bo := backoff.WithContext(retry.NewBackOff(s.client.RetryPolicy()), tw.ctx)
	for {
		leases, err := s.acquireOnce(tw, qty)
		switch {
		case err != nil && tw.isOver():
			return nil, tw.ended(pending(s.client), err)
		case !errors.Is(err, errVanished):
			return leases, err
		}
		sleep := bo.NextBackOff()
		if sleep == backoff.Stop {
			return nil, errorf("%w: %s: %w", ErrLockLost, tw.what, err)
		}
		s.client.Logger().Debug("lease node vanished; acquiring again", zap.String("path", s.path), zap.Error(err))
		retry := time.NewTimer(sleep)
		select {
		case <-retry.C:
		case <-tw.over:
			retry.Stop()
			return nil, tw.ended("a retry", err)
		case <-tw.ctx.Done():
			retry.Stop()
			if tw.isOver() {
				return nil, tw.ended("a retry", err)
			}
			return nil, tw.ctx.Err()
		}
	}
}

// acquireOnce takes the semaphore's lock, then qty leases one after the
// other, within tw. It returns nil leases and a nil error when tw's deadline
// passes first. Its clean-up (the lease nodes of a failed acquisition, and
// the lock) shares one cleanupContext, so a caller who gave up is not kept
// waiting, even in a partition.
func (s *InterProcessSemaphoreV2) acquireOnce(tw *timedWait, qty int) (leases []*Lease, err error) {
	ctx := tw.ctx
	lock := newMutex(s.client, s.locksPath, lockNameMutex, 1, mutexConfig{driver: StandardLockInternalsDriver{}}) // reports no metrics of its own
	ok, err := lock.acquireWithin(tw)
	if err != nil {
		return nil, errorf("semaphore %s: %w", s.path, err)
	}
	if !ok {
		return nil, nil
	}
	taken := make([]*Lease, 0, qty) // granted, and the last one perhaps not
	defer func() {
		ctx, cancel := cleanupContext(ctx, s.client, s.client.SessionTimeout(), withGrace)
		defer cancel()
		if leases == nil {
			if cerr := closeAll(ctx, taken); cerr != nil {
				s.client.Logger().Debug("returning leases failed; deleting them in the background", zap.Error(cerr))
			}
		}
		if err := lock.release(ctx, noGrace); err != nil {
			s.client.Logger().Warn("releasing the semaphore's lock failed", zap.String("path", s.locksPath), zap.Error(err))
			s.client.ReportError(fmt.Errorf("locks: releasing the semaphore's lock %q failed: %w", s.locksPath, err))
		}
	}()
	for len(taken) < qty {
		lease, granted, err := s.acquireLease(tw, lock)
		if lease != nil {
			taken = append(taken, lease)
		}
		if !granted {
			return nil, err
		}
	}
	return taken, nil
}

// acquireLease creates one lease node and waits until it is granted, while
// this acquisition holds the semaphore's lock. On any other outcome the lease
// it returns, if any, is the node to delete, never granted. The node must be
// the current session's: one left by a session the client gave up or the
// server expired never grants the lease (errVanished: the acquisition starts
// again).
func (s *InterProcessSemaphoreV2) acquireLease(tw *timedWait, lock *InterProcessMutex) (lease *Lease, granted bool, err error) {
	ctx := tw.ctx
	p, owner, err := owned.Create(ctx, s.client, func(ctx context.Context) (string, error) {
		return s.client.Create(ctx, framework.JoinPath(s.leasesPath, leaseName), s.data,
			framework.WithMode(framework.EphemeralSequential),
			framework.WithProtection(),
			framework.CreatingParentContainersIfNeeded())
	})
	switch {
	case err != nil && p != "":
		err = errorf("semaphore %s: %w", s.path, err)
	case err == nil && owner.ID() == 0:
		err = vanished(p)
	case err == nil:
		granted, err = s.awaitGrant(tw, p, owner, lock)
		if err == nil && granted {
			return s.grant(ctx, p, owner)
		}
	}
	if p == "" {
		return nil, false, errorf("semaphore %s: create lease node: %w", s.path, err)
	}
	return &Lease{client: s.client, path: p, lost: make(chan struct{})}, false, err
}

// grant makes the granted lease node p a Lease: it reads the node's creation
// zxid, the lease's fencing token, and sets the lease's first watch on it. On
// failure the lease it returns is the node to delete.
func (s *InterProcessSemaphoreV2) grant(ctx context.Context, p string, owner framework.Session) (*Lease, bool, error) {
	stat, events, err := s.client.ExistsW(ctx, p)
	switch {
	case err != nil:
		err = errorf("semaphore %s: read lease node %s: %w", s.path, p, err)
	case stat == nil:
		err = vanished(p)
	case stat.EphemeralOwner != owner.ID():
		err = sessionGone(p, owner)
	default:
		return newLease(s.client, p, owner, stat.Czxid, events, s.met), true, nil
	}
	return &Lease{client: s.client, path: p, lost: make(chan struct{})}, false, err
}
