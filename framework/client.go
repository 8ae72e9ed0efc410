package framework

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/internal/listen"
	"github.com/zkcurator/zkcurator/internal/queue"
	"github.com/zkcurator/zkcurator/retry"
)

// Client is a ZooKeeper client with Curator's guarantees: connection states delivered
// in order, operations run through the retry policy, namespaces, protected creates and
// guaranteed deletes. It is safe for concurrent use. Views made by UsingNamespace share
// one connection, state and set of listeners.
type Client struct {
	core  *core
	ns    string // the namespace prefix ("/app"), or "" for none
	nsErr error  // an invalid namespace given to UsingNamespace, returned by every operation
	// compressed: a Compressed view, whose Create and SetData compress and whose
	// GetData and GetDataW decompress (compression.go).
	compressed bool
}

// core is what every namespace view of a client shares.
type core struct {
	cfg config
	log *zap.Logger
	met *clientMetrics

	events    *queue.Queue[loopEvent]
	notices   *queue.Queue[ConnectionState]
	listeners listen.Set[ConnectionState]
	// nodeEvents and nodeListeners carry watch notifications to the
	// callbacks of ListenNodeEvents (node_events.go).
	nodeEvents    *queue.Queue[zk.Event]
	nodeListeners listen.Set[zk.Event]
	watches       *watchRegistry // persistent watches (watch_registry.go)
	// errEvents and errListeners carry errors no call returns to the
	// callbacks of ListenErrors (unhandled.go).
	errEvents    *queue.Queue[error]
	errListeners listen.Set[error]
	bg           *background
	resolver     *resolver // resolves the connect string's names at each dial

	closing  chan struct{} // closed when Close begins
	loopStop chan struct{} // closed when the event loop and node event dispatcher must stop

	// losses counts dropped connections; see ConnectionLosses.
	losses atomic.Uint64

	mu         sync.Mutex
	started    bool
	closed     bool
	connClosed bool // Close is closing the connection: its events are ignored
	noSpawn    bool // set once Close waits for our goroutines
	wg         sync.WaitGroup
	sess       session         // guarded by mu; see connection.go
	nsReady    map[string]bool // namespace roots known to exist
	chrootSeen bool            // the connect string's chroot was found to exist
	closeOnce  sync.Once
}

// NewClient checks its arguments and makes a client for the comma-separated servers in
// connectString ("127.0.0.1:2181,127.0.0.1:2182"; a server without a port uses 2181,
// an IPv6 host goes in brackets), optionally followed by a chroot as in the Java
// client ("host:2181,host:2182/app"): every path is then relative to "/app", which
// must exist (an operation fails with ErrNoChroot until it does); see the package doc
// for how a chroot differs from WithNamespace, with which it composes. Server names
// are resolved at each connection attempt, not here: a name that does not resolve
// is skipped with a warning, as the Java client does (see ErrUnresolvable). It does
// no network I/O; call Start. An argument it cannot use (a port outside 1..65535, an
// empty host, an invalid chroot, a session or connection timeout outside
// 1ms..2^31-1 ms, an invalid policy or namespace) fails with an error matching
// ErrInvalidArgument that names the value.
func NewClient(connectString string, policy retry.Policy, opts ...Option) (*Client, error) {
	cfg, err := newConfig(connectString, policy, opts)
	if err != nil {
		return nil, err
	}
	k := &core{
		cfg:        cfg,
		log:        cfg.logger,
		met:        newClientMetrics(cfg.metrics),
		events:     queue.New[loopEvent](),
		notices:    queue.New[ConnectionState](),
		nodeEvents: queue.New[zk.Event](),
		errEvents:  queue.New[error](),
		closing:    make(chan struct{}),
		loopStop:   make(chan struct{}),
		nsReady:    make(map[string]bool),
	}
	k.bg = newBackground(k)
	k.watches = newWatchRegistry(k)
	k.resolver = newResolver(cfg.servers, cfg.lookup, k.log)
	if cfg.tlsDialer != nil {
		cfg.tlsDialer.report = k.reportError
	}
	k.sess.readiness = newReadiness(k.log, cfg.auth, func(gen, epoch uint64) {
		k.events.Push(loopEvent{kind: evRewatched, gen: gen, epoch: epoch, timedOut: true})
	})
	ns := ""
	if cfg.namespace != "" {
		ns = "/" + cfg.namespace
	}
	return &Client{core: k, ns: ns}, nil
}

// Start begins connecting in the background and returns at once; use
// BlockUntilConnected or Listen to learn when the client is connected. A client can be
// started only once.
func (c *Client) Start() error {
	k := c.core
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case k.closed:
		return ErrClosed
	case k.started:
		return errors.New("framework: client already started")
	}
	if err := k.connectLocked(); err != nil {
		return err
	}
	k.started = true
	k.spawnLocked(k.eventLoop)
	k.spawnLocked(func() { k.dispatch(k.closing) }) // no state is reported once Close begins
	k.spawnLocked(func() { k.dispatchNodeEvents(k.loopStop) })
	k.spawnLocked(func() { k.dispatchErrors(k.loopStop) })
	k.spawnLocked(k.bg.run)
	return nil
}

// Close stops the client: it gives pending guaranteed deletes up to
// min(5 s, connection timeout) to finish, closes the session (its ephemeral nodes go)
// and waits for the client's goroutines to end, including a listener call under way.
// From the moment Close is called no connection state is reported to listeners or by
// State (a reconnect or an expiry while the deletes drain included), and every
// operation returns ErrClosed. Close always returns nil; calling it again (or on
// another namespace view of the same client) does nothing more and returns nil.
func (c *Client) Close() error {
	k := c.core
	k.closeOnce.Do(k.close)
	return nil
}

func (k *core) close() {
	k.mu.Lock()
	k.closed = true
	started := k.started
	close(k.closing)
	k.mu.Unlock()

	if started {
		k.bg.drain(min(5*time.Second, k.cfg.connectionTimeout))
	} else {
		k.bg.drain(0)
	}

	k.mu.Lock()
	conn, gate, cancelDial := k.sess.conn, k.sess.gate, k.sess.cancelDial
	k.connClosed = true
	k.endSessionLocked()
	k.endStateLocked()
	k.stopSuspendTimerLocked()
	k.sess.readiness.stopRewatch()
	k.mu.Unlock()
	if conn != nil {
		closeConn(conn, gate, cancelDial)
	}
	close(k.loopStop)

	k.mu.Lock()
	k.noSpawn = true
	k.mu.Unlock()
	k.wg.Wait()
}

// spawnLocked runs fn on a goroutine that Close waits for. It reports false, and does not
// run fn, once Close has begun waiting. k.mu must be held.
func (k *core) spawnLocked(fn func()) bool {
	if k.noSpawn {
		return false
	}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		fn()
	}()
	return true
}

func (k *core) spawn(fn func()) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.spawnLocked(fn)
}

// Done returns a channel that is closed when Close begins, so that work a
// recipe runs in the background for this client ends with it.
func (c *Client) Done() <-chan struct{} { return c.core.closing }

// UsingNamespace returns a view of the client whose paths are relative to ns (""
// for none), sharing this client's connection, state, listeners and lifetime. If ns is
// invalid, every operation of the view returns an error naming it.
func (c *Client) UsingNamespace(ns string) *Client {
	if err := validateNamespace(ns); err != nil {
		return &Client{core: c.core, nsErr: err, compressed: c.compressed}
	}
	if ns == "" {
		return &Client{core: c.core, compressed: c.compressed}
	}
	return &Client{core: c.core, ns: "/" + ns, compressed: c.compressed}
}

// Namespace returns the client's namespace without its leading slash ("" for none).
func (c *Client) Namespace() string {
	if c.ns == "" {
		return ""
	}
	return c.ns[1:]
}

// ErrorPolicy returns the policy set with WithErrorPolicy.
func (c *Client) ErrorPolicy() ErrorPolicy { return c.core.cfg.errorPolicy }

// Logger returns the client's logger; it is never nil.
func (c *Client) Logger() *zap.Logger { return c.core.log }

// Conn returns the current go-zookeeper connection, or nil before Start. Requests made
// on it bypass the chroot, namespaces and retries. After a simulated session expiry the client
// replaces it, so do not keep it.
func (c *Client) Conn() *zk.Conn {
	c.core.mu.Lock()
	defer c.core.mu.Unlock()
	return c.core.sess.conn
}

// State returns the last connection state reported to listeners (zero before the first
// connection); it no longer changes once Close has been called.
func (c *Client) State() ConnectionState {
	c.core.mu.Lock()
	defer c.core.mu.Unlock()
	return c.core.sess.state
}

// SessionID returns the id of the current session, or 0 when there is none.
func (c *Client) SessionID() int64 {
	c.core.mu.Lock()
	conn := c.core.sess.conn
	c.core.mu.Unlock()
	if conn == nil {
		return 0
	}
	return conn.SessionID()
}

// ConnectionLosses counts the times go-zookeeper has reported the client's
// connection down since it started (Close and failed handshakes count too).
// A loss is counted as soon as go-zookeeper sees it, before it reconnects and
// sets the session's watches again, and watch events that come after a
// reconnect may come in another order than their changes happened: code that
// relies on the order of its watch events can compare the count from before
// it set the watches with the count when it acts.
func (c *Client) ConnectionLosses() uint64 { return c.core.losses.Load() }

// SessionTimeout returns the session timeout the server negotiated, or the requested
// one before the first connection.
func (c *Client) SessionTimeout() time.Duration {
	c.core.mu.Lock()
	defer c.core.mu.Unlock()
	return c.core.sessionTimeoutLocked()
}

// BlockUntilConnected waits until the client is connected (with auth applied) or ctx
// ends, then with an error matching ErrNotConnected and ctx's error that names the
// servers and the time waited. It returns ErrNotStarted before Start and ErrClosed
// after Close.
func (c *Client) BlockUntilConnected(ctx context.Context) error {
	_, err := c.core.waitReady(ctx, 0, false)
	return err
}
