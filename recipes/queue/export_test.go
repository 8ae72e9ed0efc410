package queue

import "github.com/zkcurator/zkcurator/internal/clock"

// WithClock makes the queue time its due items and its pauses after a
// failure by c, so that a test advances c rather than wait.
func WithClock(c clock.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// RetryPause is how long the consumer loop waits after a failed listing or
// take.
const RetryPause = retryPause
