package retry

import "time"

// UntilElapsed is Curator's RetryUntilElapsed: retries, each after Sleep, for
// as long as the time elapsed before the sleep is below MaxElapsed. Like
// Curator it compares the elapsed time measured before the sleep, so the last
// retry may start up to Sleep after MaxElapsed.
type UntilElapsed struct {
	// MaxElapsed is the time after which no retry starts; it must be positive.
	MaxElapsed time.Duration
	// Sleep is the wait before each retry; it must not be negative.
	Sleep time.Duration
}

// AllowRetry allows a retry after Sleep while elapsed is below MaxElapsed;
// retryCount is ignored. An invalid policy allows nothing.
func (p UntilElapsed) AllowRetry(_ int, elapsed time.Duration) (time.Duration, bool) {
	if p.Validate() != nil || elapsed >= p.MaxElapsed {
		return 0, false
	}
	return p.Sleep, true
}

// Validate rejects a MaxElapsed that is not positive and a negative Sleep.
func (p UntilElapsed) Validate() error {
	switch {
	case p.MaxElapsed <= 0:
		return invalid("UntilElapsed.MaxElapsed", p.MaxElapsed, "must be positive")
	case p.Sleep < 0:
		return invalid("UntilElapsed.Sleep", p.Sleep, "must not be negative")
	}
	return nil
}
