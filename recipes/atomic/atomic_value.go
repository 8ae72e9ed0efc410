package atomic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/versioned"
	"github.com/zkcurator/zkcurator/retry"
)

// DistributedAtomicValue is Curator's DistributedAtomicValue: a byte value in
// one persistent node, updated atomically. It is safe for concurrent use.
type DistributedAtomicValue struct {
	c    *framework.Client
	path string
	opts options
	met  *updateMetrics
}

// NewDistributedAtomicValue returns the value stored at path. Nothing is sent
// until an operation runs; a missing node is created by the first update.
func NewDistributedAtomicValue(c *framework.Client, path string, opts ...Option) (*DistributedAtomicValue, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil client for the atomic value at %q", ErrInvalidArgument, path)
	}
	if err := validatePath("atomic value path", path); err != nil {
		return nil, err
	}
	o, err := newOptions(path, opts)
	if err != nil {
		return nil, err
	}
	return &DistributedAtomicValue{c: c, path: path, opts: o, met: newUpdateMetrics(c)}, nil
}

// Path returns the node's path.
func (v *DistributedAtomicValue) Path() string { return v.path }

// Get returns the current value (nil when the node does not exist) as both
// PreValue and PostValue, with Succeeded true.
func (v *DistributedAtomicValue) Get(ctx context.Context) (AtomicValue[[]byte], error) {
	data, _, err := v.read(ctx)
	if err != nil {
		return AtomicValue[[]byte]{}, err
	}
	return AtomicValue[[]byte]{Succeeded: true, PreValue: data, PostValue: data}, nil
}

// read returns the node's data and Stat, or nil and a nil Stat when it does
// not exist.
func (v *DistributedAtomicValue) read(ctx context.Context) ([]byte, *zk.Stat, error) {
	data, stat, err := v.c.GetData(ctx, v.path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("atomic: read %s: %w", v.path, err)
	}
	return data, stat, nil
}

// CompareAndSet sets the value to newValue if it currently equals expected,
// in a single versioned write without retries, as Curator's compareAndSet.
// A missing node never equals expected.
func (v *DistributedAtomicValue) CompareAndSet(ctx context.Context, expected, newValue []byte) (AtomicValue[[]byte], error) {
	return v.compareAndSet(ctx, func(cur []byte) (bool, error) { return bytes.Equal(cur, expected), nil }, newValue)
}

func (v *DistributedAtomicValue) compareAndSet(ctx context.Context, equal func([]byte) (bool, error), newValue []byte) (res AtomicValue[[]byte], err error) {
	defer func() { v.met.record(res.Stats, res.Succeeded, err) }()
	res.Stats.OptimisticTries = 1
	cur, stat, err := v.read(ctx)
	if err != nil {
		return res, err
	}
	res.PreValue = cur
	if stat == nil {
		return res, nil
	}
	eq, err := equal(cur)
	if err != nil || !eq {
		return res, err
	}
	res.PostValue = bytes.Clone(newValue)
	_, err = versioned.Set(ctx, v.c, v.path, nonNil(newValue), stat)
	switch {
	case err == nil:
		res.Succeeded = true
		return res, nil
	case rejected(err):
		return res, nil
	}
	return res, fmt.Errorf("atomic: compare and set %s: %w", v.path, err)
}

// TrySet sets the value to newValue if no other update intervenes between
// its read and its write, trying again as the retry policy (and the promoted
// lock, if configured) allows, as Curator's trySet.
func (v *DistributedAtomicValue) TrySet(ctx context.Context, newValue []byte) (AtomicValue[[]byte], error) {
	nv := bytes.Clone(nonNil(newValue))
	return v.update(ctx, func([]byte, bool) ([]byte, error) { return nv, nil })
}

// ForceSet sets the value to newValue whatever it was, creating the node if
// needed. Unlike the other updates it is idempotent, so it is retried after a
// connection loss like any framework write.
func (v *DistributedAtomicValue) ForceSet(ctx context.Context, newValue []byte) error {
	data := nonNil(newValue)
	_, err := v.c.SetData(ctx, v.path, data, -1)
	if errors.Is(err, zk.ErrNoNode) {
		_, err = v.c.Create(ctx, v.path, data, framework.CreatingParentContainersIfNeeded())
		if errors.Is(err, zk.ErrNodeExists) {
			_, err = v.c.SetData(ctx, v.path, data, -1)
		}
	}
	if err != nil {
		return fmt.Errorf("atomic: force set %s: %w", v.path, err)
	}
	return nil
}

// Initialize creates the node with value if it does not exist and reports
// whether this call created it, as Curator's initialize. An error matching
// ErrOutcomeUnknown means the create's reply was lost.
func (v *DistributedAtomicValue) Initialize(ctx context.Context, value []byte) (bool, error) {
	err := versioned.Create(ctx, v.c, v.path, nonNil(value))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, zk.ErrNodeExists) && !errors.Is(err, ErrOutcomeUnknown):
		return false, nil
	}
	return false, fmt.Errorf("atomic: initialize %s: %w", v.path, err)
}

// makeFunc computes the new value from the current one (nil and exists false
// when the node does not exist).
type makeFunc func(cur []byte, exists bool) ([]byte, error)

// update runs the optimistic tries, then the promoted ones if configured and
// still needed.
func (v *DistributedAtomicValue) update(ctx context.Context, mk makeFunc) (res AtomicValue[[]byte], err error) {
	defer func() { v.met.record(res.Stats, res.Succeeded, err) }()
	start := time.Now()
	err = v.tries(ctx, &res, v.opts.policy, mk, &res.Stats.OptimisticTries)
	res.Stats.OptimisticTime = time.Since(start)
	if err != nil || res.Succeeded || v.opts.promoted == nil {
		return res, err
	}
	v.met.promotions.Add(1)
	start = time.Now()
	err = v.underLock(ctx, &res, mk)
	res.Stats.PromotedTime = time.Since(start)
	return res, err
}

// tries runs tryOnce until it succeeds or policy allows no more, counting
// each try in *count. It returns an error only when a try failed other than
// by a conflict, or ctx ended; the error matches ErrOutcomeUnknown when a
// write may have applied.
func (v *DistributedAtomicValue) tries(ctx context.Context, res *AtomicValue[[]byte], policy retry.Policy, mk makeFunc, count *int) error {
	start := time.Now()
	for retries := 0; ; retries++ {
		*count++
		done, err := v.tryOnce(ctx, res, mk)
		if err != nil || done {
			res.Succeeded = done
			return err
		}
		sleep, ok := policy.AllowRetry(retries, time.Since(start))
		if !ok {
			return nil
		}
		if err := sleepCtx(ctx, sleep); err != nil {
			return fmt.Errorf("atomic: update %s: waiting %v to retry after a conflict: %w", v.path, sleep, err)
		}
	}
}

// tryOnce reads the value, computes the new one and writes it if the node
// is unchanged. It reports false and no error on a conflict.
func (v *DistributedAtomicValue) tryOnce(ctx context.Context, res *AtomicValue[[]byte], mk makeFunc) (bool, error) {
	cur, stat, err := v.read(ctx)
	if err != nil {
		return false, err
	}
	res.PreValue = cur
	next, err := mk(cur, stat != nil)
	if err != nil {
		return false, err
	}
	next = nonNil(next)
	res.PostValue = next
	if stat == nil {
		err = versioned.Create(ctx, v.c, v.path, next)
	} else {
		_, err = versioned.Set(ctx, v.c, v.path, next, stat)
	}
	switch {
	case err == nil:
		return true, nil
	case rejected(err):
		return false, nil
	}
	return false, fmt.Errorf("atomic: update %s: %w", v.path, err)
}

// rejected reports a write that certainly did not apply because the node
// changed under it.
func rejected(err error) bool {
	if errors.Is(err, ErrOutcomeUnknown) {
		return false
	}
	return errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrNodeExists)
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
