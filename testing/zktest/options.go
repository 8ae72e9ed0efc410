package zktest

import (
	"fmt"
	"io"
	"time"
)

// Defaults for a test server: a short tick allows sessions down to 400 ms.
const (
	defaultTickTime               = 200 * time.Millisecond
	defaultContainerCheckInterval = time.Second
)

// ServerOption configures a Server or every member of a Cluster.
type ServerOption func(*serverConfig)

type serverConfig struct {
	tickTime               time.Duration
	extendedTypes          bool
	containerCheckInterval time.Duration
	logOutput              io.Writer
	tls                    *serverTLS  // set by WithTLS
	sasl                   *serverSASL // set by WithSASLDigest, WithSASLRequired
}

func newServerConfig(opts []ServerOption) (serverConfig, error) {
	cfg := serverConfig{
		tickTime:               defaultTickTime,
		containerCheckInterval: defaultContainerCheckInterval,
	}
	for _, opt := range opts {
		opt(&cfg)
	}
	if cfg.tickTime < time.Millisecond || cfg.tickTime%time.Millisecond != 0 {
		return cfg, fmt.Errorf("zktest: tick time %v: must be a whole number of milliseconds, at least 1ms", cfg.tickTime)
	}
	if cfg.containerCheckInterval < time.Millisecond || cfg.containerCheckInterval%time.Millisecond != 0 {
		return cfg, fmt.Errorf("zktest: container check interval %v: must be a whole number of milliseconds, at least 1ms", cfg.containerCheckInterval)
	}
	if err := cfg.sasl.validate(); err != nil {
		return cfg, err
	}
	return cfg, cfg.tls.validate()
}

// WithTickTime sets ZooKeeper's tickTime (default 200ms). Sessions may be as
// short as two ticks.
func WithTickTime(d time.Duration) ServerOption {
	return func(c *serverConfig) { c.tickTime = d }
}

// WithExtendedTypes enables ZooKeeper's extended types, which TTL nodes need
// (zookeeper.extendedTypesEnabled).
func WithExtendedTypes() ServerOption {
	return func(c *serverConfig) { c.extendedTypes = true }
}

// WithContainerCheckInterval sets how often the server deletes empty
// container nodes and expired TTL nodes (default 1s).
func WithContainerCheckInterval(d time.Duration) ServerOption {
	return func(c *serverConfig) { c.containerCheckInterval = d }
}

// WithLogOutput copies the server's log to w as well, from another goroutine,
// until the server stops. The log is always kept in the server's temporary
// directory, where LogTail reads it.
func WithLogOutput(w io.Writer) ServerOption {
	return func(c *serverConfig) { c.logOutput = w }
}
