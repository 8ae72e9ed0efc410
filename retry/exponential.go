package retry

import (
	"math"
	"math/rand/v2"
	"time"
)

// maxExponentialRetries is Curator's MAX_RETRIES_LIMIT, which keeps the
// multiplier 2^(retryCount+1) within Java's int.
const maxExponentialRetries = 29

// ExponentialBackoff is Curator's ExponentialBackoffRetry (and, with MaxSleep
// set, BoundedExponentialBackoffRetry). Retry number retryCount sleeps
// BaseSleep × max(1, r) where r is uniform in [0, 2^(retryCount+1)), capped at
// MaxSleep when MaxSleep is positive. At most MaxRetries retries are allowed;
// a MaxRetries above 29 counts as 29, as in Curator.
//
// The zero value is invalid (BaseSleep must be positive). ExponentialBackoff
// is safe for concurrent use: its random draws come from math/rand/v2's
// concurrency-safe global source.
type ExponentialBackoff struct {
	// BaseSleep is the unit of every sleep; it must be positive.
	BaseSleep time.Duration
	// MaxSleep caps every sleep when positive; zero means no cap.
	// When set it must not be less than BaseSleep.
	MaxSleep time.Duration
	// MaxRetries is the number of retries allowed, pinned to 29; zero allows none.
	MaxRetries int
}

// AllowRetry allows retries while retryCount is below MaxRetries (pinned to
// 29) and returns Curator's randomized exponential sleep; elapsed is ignored.
// A negative retryCount counts as 0, and an invalid policy allows nothing.
func (p ExponentialBackoff) AllowRetry(retryCount int, _ time.Duration) (time.Duration, bool) {
	if p.Validate() != nil || retryCount >= min(p.MaxRetries, maxExponentialRetries) {
		return 0, false
	}
	return p.sleep(max(retryCount, 0)), true
}

// sleep draws the sleep for a retryCount in [0, 29).
func (p ExponentialBackoff) sleep(retryCount int) time.Duration {
	multiplier := max(1, rand.Int64N(1<<(retryCount+1)))
	d := time.Duration(math.MaxInt64)
	if p.BaseSleep <= d/time.Duration(multiplier) {
		d = p.BaseSleep * time.Duration(multiplier)
	}
	if p.MaxSleep > 0 && d > p.MaxSleep {
		d = p.MaxSleep
	}
	return d
}

// Validate reports the first field that makes the policy unusable: a
// BaseSleep that is not positive, a negative MaxSleep or MaxRetries, or a
// MaxSleep below BaseSleep.
func (p ExponentialBackoff) Validate() error {
	switch {
	case p.BaseSleep <= 0:
		return invalid("ExponentialBackoff.BaseSleep", p.BaseSleep, "must be positive")
	case p.MaxSleep < 0:
		return invalid("ExponentialBackoff.MaxSleep", p.MaxSleep, "must be positive, or zero for no cap")
	case p.MaxSleep > 0 && p.MaxSleep < p.BaseSleep:
		return invalid("ExponentialBackoff.MaxSleep", p.MaxSleep, "must not be less than BaseSleep "+p.BaseSleep.String())
	case p.MaxRetries < 0:
		return invalid("ExponentialBackoff.MaxRetries", p.MaxRetries, "must not be negative")
	}
	return nil
}
