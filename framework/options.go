package framework

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/retry"
)

// Defaults, as Curator's CuratorFrameworkFactory.
const (
	defaultSessionTimeout    = 60 * time.Second
	defaultConnectionTimeout = 15 * time.Second
	defaultSimulatedPercent  = 100
)

// Option configures a Client made by NewClient.
type Option func(*config)

type authInfo struct {
	scheme string
	auth   []byte
}

type config struct {
	servers           []string
	policy            retry.Policy
	sessionTimeout    time.Duration
	connectionTimeout time.Duration
	namespace         string
	logger            *zap.Logger
	aclProvider       ACLProvider
	auth              []authInfo
	defaultData       []byte
	errorPolicy       ErrorPolicy
	dialer            zk.Dialer
	simulatedPercent  int
	metrics           Metrics
}

// WithSessionTimeout sets the session timeout the client asks for (default 60 s); the
// server may negotiate it into its own bounds (2 to 20 tickTimes by default).
func WithSessionTimeout(d time.Duration) Option {
	return func(c *config) { c.sessionTimeout = d }
}

// WithConnectionTimeout sets how long an operation waits for a connection before the
// attempt fails with a connection loss and the retry policy decides (default 15 s).
func WithConnectionTimeout(d time.Duration) Option {
	return func(c *config) { c.connectionTimeout = d }
}

// WithNamespace prefixes every path with "/"+ns, as Curator's namespace (for example
// "app" or "app/prod", without a leading slash). The namespace root is created as a
// container on first use.
func WithNamespace(ns string) Option {
	return func(c *config) { c.namespace = ns }
}

// WithLogger sets the logger for the client and for go-zookeeper's own messages (at
// debug level). A nil logger, like the default, logs nothing.
func WithLogger(l *zap.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithACLProvider sets the ACLs of created nodes (default: open to the world).
func WithACLProvider(p ACLProvider) Option {
	return func(c *config) { c.aclProvider = p }
}

// WithAuth adds authentication (for example scheme "digest", auth "user:password")
// that the client sends on every connection, including after the session is replaced.
// It may be given more than once.
func WithAuth(scheme string, auth []byte) Option {
	return func(c *config) {
		c.auth = append(c.auth, authInfo{scheme: scheme, auth: append([]byte(nil), auth...)})
	}
}

// WithDefaultData sets the data of nodes created with nil data (default: empty, where
// Curator writes the local IP address). Parents made by CreatingParentsIfNeeded stay empty.
func WithDefaultData(data []byte) Option {
	return func(c *config) { c.defaultData = append([]byte(nil), data...) }
}

// WithErrorPolicy sets the policy recipes use to decide which connection states mean
// that what they hold is lost (default StandardErrorPolicy).
func WithErrorPolicy(p ErrorPolicy) Option {
	return func(c *config) { c.errorPolicy = p }
}

// WithDialer sets the function go-zookeeper uses to open connections.
func WithDialer(d zk.Dialer) Option {
	return func(c *config) { c.dialer = d }
}

// WithSimulatedSessionExpirationPercent sets after what share of the negotiated session
// timeout spent Suspended the client reports Lost and replaces the session without
// waiting for the server's verdict (default 100; 0 turns the simulation off).
func WithSimulatedSessionExpirationPercent(percent int) Option {
	return func(c *config) { c.simulatedPercent = percent }
}

func newConfig(connectString string, policy retry.Policy, opts []Option) (config, error) {
	cfg := config{
		policy:            policy,
		sessionTimeout:    defaultSessionTimeout,
		connectionTimeout: defaultConnectionTimeout,
		simulatedPercent:  defaultSimulatedPercent,
		aclProvider:       openACLProvider{},
	}
	for _, opt := range opts {
		if opt == nil {
			return config{}, errors.New("framework: nil Option")
		}
		opt(&cfg)
	}
	servers, err := parseConnectString(connectString)
	if err != nil {
		return config{}, err
	}
	cfg.servers = servers
	if policy == nil {
		return config{}, errors.New("framework: retry policy must not be nil")
	}
	if err := retry.Validate(policy); err != nil {
		return config{}, fmt.Errorf("framework: invalid retry policy %#v: %w", policy, err)
	}
	if cfg.sessionTimeout < time.Millisecond {
		return config{}, fmt.Errorf("framework: session timeout must be at least 1ms, got %v", cfg.sessionTimeout)
	}
	if cfg.connectionTimeout <= 0 {
		return config{}, fmt.Errorf("framework: connection timeout must be positive, got %v", cfg.connectionTimeout)
	}
	if err := validateNamespace(cfg.namespace); err != nil {
		return config{}, err
	}
	if cfg.simulatedPercent < 0 || cfg.simulatedPercent > 100 {
		return config{}, fmt.Errorf("framework: simulated session expiration percent must be within 0..100, got %d", cfg.simulatedPercent)
	}
	if cfg.errorPolicy != StandardErrorPolicy && cfg.errorPolicy != SessionErrorPolicy {
		return config{}, fmt.Errorf("framework: unknown error policy %d", int(cfg.errorPolicy))
	}
	if cfg.aclProvider == nil {
		return config{}, errors.New("framework: ACL provider must not be nil")
	}
	for _, a := range cfg.auth {
		if a.scheme == "" {
			return config{}, errors.New("framework: auth scheme must not be empty")
		}
	}
	if cfg.defaultData == nil {
		cfg.defaultData = []byte{}
	}
	if cfg.logger == nil {
		cfg.logger = zap.NewNop()
	}
	if cfg.metrics == nil {
		cfg.metrics = NopMetrics{}
	}
	return cfg, nil
}

// parseConnectString splits "host:port,host:port". ZooKeeper's chroot suffix is not
// supported by go-zookeeper; WithNamespace does the same job.
func parseConnectString(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("framework: connect string must not be empty")
	}
	if strings.Contains(s, "/") {
		return nil, fmt.Errorf("framework: connect string %q has a chroot suffix, which is not supported; use WithNamespace", s)
	}
	var servers []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("framework: connect string %q has an empty server", s)
		}
		servers = append(servers, part)
	}
	return servers, nil
}
