package discovery

import (
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/recipes/internal/apply"
)

// Option configures a ServiceDiscovery.
type Option func(*config)

type config struct {
	retryEvery time.Duration
}

// WithRetryEvery sets how often a registration that could not be made again
// after a reconnect is tried again (1 s by default; 10 ms to 1 min).
func WithRetryEvery(d time.Duration) Option { return func(c *config) { c.retryEvery = d } }

func newConfig(basePath string, opts []Option) (config, error) {
	cfg := config{retryEvery: time.Second}
	if err := apply.Options(&cfg, opts, ErrInvalidArgument, fmt.Sprintf("the discovery under %q", basePath)); err != nil {
		return cfg, err
	}
	if cfg.retryEvery < 10*time.Millisecond || cfg.retryEvery > time.Minute {
		return cfg, fmt.Errorf("%w: retry interval %v is outside 10ms..1m", ErrInvalidArgument, cfg.retryEvery)
	}
	return cfg, nil
}
