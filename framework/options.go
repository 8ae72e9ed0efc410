package framework

import (
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/internal/clock"
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
	chroot            string // the connect string's chroot ("/app"), or "" for none
	policy            retry.Policy
	sessionTimeout    time.Duration
	connectionTimeout time.Duration
	namespace         string
	logger            *zap.Logger
	aclProvider       ACLProvider
	auth              []authInfo
	tls               *tls.Config // set by WithTLS
	tlsSet            bool
	defaultData       []byte
	errorPolicy       ErrorPolicy
	dialer            zk.Dialer
	tlsDialer         *tlsDialer // with WithTLS: the handshake over dialer's connections
	lookup            lookupFunc // resolves server names; nil: the system's resolver
	simulatedPercent  int
	metrics           Metrics
	compression       CompressionProvider
	sasl              *saslAuth // set by WithSASL
	// clock times the simulated session expiry and the retry of a failed
	// connect; the wall clock unless a test sets another.
	clock clock.Clock
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

// WithACLProvider sets the ACLs of every node the client creates, recipes'
// nodes and the parents and containers made for them included (default: open
// to the world). See CreatorAllACLProvider, X509ACLProvider and the others.
func WithACLProvider(p ACLProvider) Option {
	return func(c *config) { c.aclProvider = p }
}

// WithAuth adds authentication (for example scheme "digest", auth "user:password")
// that the client sends on every new connection before any operation, including after
// the session is replaced. It may be given more than once. SASL is set with WithSASL;
// a SASL scheme here is refused with ErrSASLUnsupported; the x509 identity comes
// from WithTLS's client certificate, not from here.
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

// WithDialer sets the function that opens connections to a server's
// address: the client resolves the connect string's names itself, on every
// attempt, and passes the dialer "ip:port" (WithTLS's handshake then runs
// over the connection it returns).
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
		compression:       GzipCompression{},
		clock:             clock.Real{},
	}
	for i, opt := range opts {
		if opt == nil {
			return config{}, invalidArg("option %d is nil", i)
		}
		opt(&cfg)
	}
	servers, chroot, err := parseConnectString(connectString)
	if err != nil {
		return config{}, err
	}
	cfg.servers, cfg.chroot = servers, chroot
	if err := retry.Validate(policy); err != nil {
		return config{}, invalidArg("retry policy %#v: %w", policy, err)
	}
	if err := checkTimeout("session timeout", cfg.sessionTimeout); err != nil {
		return config{}, err
	}
	if err := checkTimeout("connection timeout", cfg.connectionTimeout); err != nil {
		return config{}, err
	}
	if err := validateNamespace(cfg.namespace); err != nil {
		return config{}, err
	}
	if cfg.simulatedPercent < 0 || cfg.simulatedPercent > 100 {
		return config{}, invalidArg("simulated session expiration percent %d is outside 0..100", cfg.simulatedPercent)
	}
	if cfg.errorPolicy != StandardErrorPolicy && cfg.errorPolicy != SessionErrorPolicy {
		return config{}, invalidArg("unknown error policy %d", int(cfg.errorPolicy))
	}
	if cfg.compression == nil {
		return config{}, invalidArg("compression provider is nil")
	}
	if cfg.aclProvider == nil {
		return config{}, invalidArg("ACL provider is nil")
	}
	for _, a := range cfg.auth {
		if err := checkAuthScheme(a.scheme); err != nil {
			return config{}, err
		}
	}
	if err := checkACLProvider(cfg.aclProvider); err != nil {
		return config{}, err
	}
	if cfg.sasl != nil {
		if err := cfg.sasl.cfg.validate(); err != nil {
			return config{}, err
		}
		cfg.sasl.init()
	}
	if cfg.tlsSet && cfg.tls == nil {
		return config{}, invalidArg("TLS config is nil")
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
	if cfg.tls != nil {
		cfg.tlsDialer = newTLSDialer(nil, cfg.tls, maxTLSHandshake, cfg.logger)
	}
	return cfg, nil
}

// maxTimeout is the longest timeout ZooKeeper's protocol carries: a signed 32-bit
// count of milliseconds.
const maxTimeout = math.MaxInt32 * time.Millisecond

// checkTimeout rejects a timeout below 1ms or beyond maxTimeout, naming it.
func checkTimeout(what string, d time.Duration) error {
	if d < time.Millisecond || d/time.Millisecond > math.MaxInt32 {
		return invalidArg("%s %v is outside 1ms..%v (ZooKeeper counts it in 32-bit milliseconds)", what, d, maxTimeout)
	}
	return nil
}

// parseConnectString splits "host:port,host:port/chroot" into its servers and
// its chroot ("" for none) and checks each server: a host, and a port within
// 1..65535 (2181 when left out, as go-zookeeper does; an IPv6 host is written
// in brackets, "[::1]:2181"). As in the Java client, the chroot is everything
// from the first "/", a valid path; "/" alone means none.
func parseConnectString(s string) (servers []string, chroot string, err error) {
	if strings.TrimSpace(s) == "" {
		return nil, "", invalidArg("connect string is empty")
	}
	hosts := s
	if i := strings.IndexByte(s, '/'); i >= 0 {
		hosts, chroot = s[:i], s[i:]
		if chroot == "/" {
			chroot = ""
		} else if reason := invalidPathReason(chroot); reason != "" {
			return nil, "", invalidArg("connect string %q: chroot %q: %s", s, chroot, reason)
		}
	}
	for _, part := range strings.Split(hosts, ",") {
		server, err := parseServer(strings.TrimSpace(part))
		if err != nil {
			return nil, "", invalidArg("connect string %q: %w", s, err)
		}
		servers = append(servers, server)
	}
	return servers, chroot, nil
}

// parseServer checks one "host:port" (or "host") and returns it as go-zookeeper
// dials it.
func parseServer(hostport string) (string, error) {
	if hostport == "" {
		return "", errors.New("empty server")
	}
	if !strings.Contains(hostport, ":") {
		hostport = net.JoinHostPort(hostport, strconv.Itoa(zk.DefaultPort))
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("server %q: %w", hostport, err)
	}
	if host == "" {
		return "", fmt.Errorf("server %q has an empty host", hostport)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("server %q has port %q, want a number within 1..65535", hostport, port)
	}
	return hostport, nil
}
