package atomic

import (
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/internal/apply"
	"github.com/zkcurator/zkcurator/retry"
)

// DefaultRetryPolicy governs the optimistic tries when WithRetryPolicy is not
// given: up to 10 retries after a conflict, with Curator's randomized
// exponential sleeps from 5 ms, capped at 250 ms.
var DefaultRetryPolicy retry.Policy = retry.ExponentialBackoff{BaseSleep: 5 * time.Millisecond, MaxSleep: 250 * time.Millisecond, MaxRetries: 10}

// Option configures a DistributedAtomicValue or DistributedAtomicLong.
type Option func(*options)

type options struct {
	policy   retry.Policy
	promoted *PromotedToLock
}

// WithRetryPolicy sets the policy that decides whether an optimistic update
// that conflicted is tried again, and after what sleep.
func WithRetryPolicy(p retry.Policy) Option {
	return func(o *options) { o.policy = p }
}

// PromotedToLock configures the second phase of an update, as Curator's
// PromotedToLock: once the optimistic tries are used up, the update is tried
// again while holding an InterProcessMutex at LockPath.
type PromotedToLock struct {
	// LockPath is the mutex's path; it must differ from the value's path.
	LockPath string
	// MaxLockTime bounds the whole second phase: connecting, the wait for
	// the lock, the tries under it and their sleeps, with half a second
	// more for the lock to give its node back when its wait runs out. A
	// release of the lock still under way then goes on in the background.
	// Zero waits as long as ctx allows.
	MaxLockTime time.Duration
	// RetryPolicy governs the tries under the lock; nil means one try.
	RetryPolicy retry.Policy
}

// WithPromotedToLock enables the second phase described by p.
func WithPromotedToLock(p PromotedToLock) Option {
	return func(o *options) { o.promoted = &p }
}

// newOptions applies opts and checks them against the value's path.
func newOptions(path string, opts []Option) (options, error) {
	o := options{policy: DefaultRetryPolicy}
	if err := apply.Options(&o, opts, ErrInvalidArgument, fmt.Sprintf("the value at %q", path)); err != nil {
		return o, err
	}
	if err := retry.Validate(o.policy); err != nil {
		return o, fmt.Errorf("%w: retry policy: %w", ErrInvalidArgument, err)
	}
	if p := o.promoted; p != nil {
		if err := validatePath("promoted lock path", p.LockPath); err != nil {
			return o, err
		}
		if p.LockPath == path {
			return o, fmt.Errorf("%w: promoted lock path %q is the value's own path", ErrInvalidArgument, p.LockPath)
		}
		if p.MaxLockTime < 0 {
			return o, fmt.Errorf("%w: promoted MaxLockTime %v is negative", ErrInvalidArgument, p.MaxLockTime)
		}
		if p.RetryPolicy == nil {
			p.RetryPolicy = retry.NTimes{N: 0}
		} else if err := retry.Validate(p.RetryPolicy); err != nil {
			return o, fmt.Errorf("%w: promoted retry policy: %w", ErrInvalidArgument, err)
		}
	}
	return o, nil
}

// validatePath checks a path the package writes under: one ZooKeeper
// accepts, and not the root. Its errors match ErrInvalidArgument and name
// the path.
func validatePath(what, path string) error {
	if err := framework.ValidatePath(path); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidArgument, what, err)
	}
	if path == "/" {
		return fmt.Errorf("%w: %s %q: the root cannot be the node of a value or a lock", ErrInvalidArgument, what, path)
	}
	return nil
}
