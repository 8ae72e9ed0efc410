package retry

import (
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// NewBackOff adapts p to cenkalti/backoff/v4. The BackOff counts the retries
// it has allowed and measures the time elapsed since it was created or last
// Reset (backoff.Retry resets it before the first attempt); each NextBackOff
// asks p with those two values and returns backoff.Stop when p refuses. A nil
// or invalid policy (see Validate) yields backoff.Stop at once. The returned
// BackOff is safe for concurrent use, but its count is shared by all callers,
// so give each retry loop its own.
func NewBackOff(p Policy) backoff.BackOff {
	b := &policyBackOff{policy: p, valid: Validate(p) == nil}
	b.Reset()
	return b
}

// policyBackOff is the backoff.BackOff behind NewBackOff.
type policyBackOff struct {
	policy Policy
	valid  bool

	mu      sync.Mutex
	start   time.Time
	retries int
}

// NextBackOff returns the sleep before the next retry, or backoff.Stop.
func (b *policyBackOff) NextBackOff() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.valid {
		return backoff.Stop
	}
	sleep, ok := b.policy.AllowRetry(b.retries, time.Since(b.start))
	if !ok {
		return backoff.Stop
	}
	b.retries++
	// A negative sleep from a custom policy must not read as backoff.Stop.
	return max(sleep, 0)
}

// Reset starts a new retry loop: no retries made, elapsed time zero.
func (b *policyBackOff) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.start = time.Now()
	b.retries = 0
}
