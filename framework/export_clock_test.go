package framework

import "github.com/zkcurator/zkcurator/internal/clock"

// WithClock makes the client time its simulated session expiry (and the
// retry of a failed connect) by c, so that a test advances c rather than
// wait out a session timeout.
func WithClock(c clock.Clock) Option { return func(cfg *config) { cfg.clock = c } }
