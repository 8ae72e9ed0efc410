package retry

import "time"

// NTimes is Curator's RetryNTimes: up to N retries, each after the same Sleep.
// N zero allows no retry.
type NTimes struct {
	// N is the number of retries allowed; it must not be negative.
	N int
	// Sleep is the wait before each retry; it must not be negative.
	Sleep time.Duration
}

// AllowRetry allows a retry while retryCount is below N, after Sleep; elapsed
// is ignored. An invalid policy allows nothing.
func (p NTimes) AllowRetry(retryCount int, _ time.Duration) (time.Duration, bool) {
	if p.Validate() != nil || retryCount >= p.N {
		return 0, false
	}
	return p.Sleep, true
}

// Validate rejects a negative N or Sleep.
func (p NTimes) Validate() error {
	switch {
	case p.N < 0:
		return invalid("NTimes.N", p.N, "must not be negative")
	case p.Sleep < 0:
		return invalid("NTimes.Sleep", p.Sleep, "must not be negative")
	}
	return nil
}

// OneTime is Curator's RetryOneTime: a single retry after Sleep.
type OneTime struct {
	// Sleep is the wait before the retry; it must not be negative.
	Sleep time.Duration
}

// AllowRetry allows only the first retry (retryCount 0), after Sleep.
// An invalid policy allows nothing.
func (p OneTime) AllowRetry(retryCount int, _ time.Duration) (time.Duration, bool) {
	if p.Validate() != nil || retryCount >= 1 {
		return 0, false
	}
	return p.Sleep, true
}

// Validate rejects a negative Sleep.
func (p OneTime) Validate() error {
	if p.Sleep < 0 {
		return invalid("OneTime.Sleep", p.Sleep, "must not be negative")
	}
	return nil
}
