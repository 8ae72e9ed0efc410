package retry

import "time"

// Forever is Curator's RetryForever: every retry is allowed, each after
// Interval. Only a context, or an error that is not retryable, ends the loop.
type Forever struct {
	// Interval is the wait before each retry; it must be positive so that the
	// loop can never spin.
	Interval time.Duration
}

// AllowRetry allows every retry after Interval. An invalid policy allows nothing.
func (p Forever) AllowRetry(int, time.Duration) (time.Duration, bool) {
	if p.Validate() != nil {
		return 0, false
	}
	return p.Interval, true
}

// Validate rejects an Interval that is not positive, as Curator does.
func (p Forever) Validate() error {
	if p.Interval <= 0 {
		return invalid("Forever.Interval", p.Interval, "must be positive")
	}
	return nil
}
