package framework

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

// ErrUnresolvable reports that no server name of the connect string resolved
// when the client last tried each: it is wrapped, with the last lookup error,
// in the ErrNotConnected of an operation that waited for a connection.
var ErrUnresolvable = errors.New("framework: no server of the connect string resolves")

// lookupTimeout bounds one name lookup.
const lookupTimeout = 3 * time.Second

// lookupFunc resolves a host name to addresses, as net.Resolver.LookupHost.
type lookupFunc func(ctx context.Context, host string) ([]string, error)

// hostProvider hands go-zookeeper the servers of the connect string by name,
// in a shuffled round, without resolving them: the dial resolves each name on
// every attempt (resolver), so that a name that does not resolve yet (a
// StatefulSet member not yet scheduled) is skipped rather than failing the
// client, and one whose address changed is found at its new one.
type hostProvider struct {
	mu      sync.Mutex
	servers []string
	cur     int // index of the server Next returned last; -1 before the first
	mark    int // index of the server last connected to (or first tried); a round ends on it
}

// Init records servers; it never fails for a name that does not resolve.
func (h *hostProvider) Init(servers []string) error {
	if len(servers) == 0 {
		return errors.New("framework: no servers")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.servers = append([]string(nil), servers...)
	rand.Shuffle(len(h.servers), func(i, j int) { h.servers[i], h.servers[j] = h.servers[j], h.servers[i] })
	h.cur, h.mark = -1, -1
	return nil
}

// Len returns the number of servers.
func (h *hostProvider) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

// Next returns the next server in the round. retryStart reports that it is
// the server last connected to (the first tried, before any connection): every
// other server was tried since, so go-zookeeper pauses before this one, as
// the Java client's StaticHostProvider does. With one server, each reconnect
// waits that pause.
func (h *hostProvider) Next() (server string, retryStart bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cur = (h.cur + 1) % len(h.servers)
	if h.mark < 0 {
		h.mark = h.cur
	} else {
		retryStart = h.cur == h.mark
	}
	return h.servers[h.cur], retryStart
}

// Connected marks the server Next returned last as the one a round ends on.
func (h *hostProvider) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mark = h.cur
}

// resolver resolves the connect string's names at each dial and remembers
// which of them failed last, to warn once per name while it fails and to say
// why no connection came.
type resolver struct {
	lookup lookupFunc
	log    *zap.Logger
	hosts  int // distinct hosts of the connect string

	mu      sync.Mutex
	failing map[string]error // host -> its last lookup error, while it fails
	tried   map[string]bool  // hosts looked up at least once
}

func newResolver(servers []string, lookup lookupFunc, log *zap.Logger) *resolver {
	if lookup == nil {
		lookup = net.DefaultResolver.LookupHost
	}
	hosts := make(map[string]bool)
	for _, s := range servers {
		host, _, _ := net.SplitHostPort(s)
		hosts[host] = true
	}
	return &resolver{lookup: lookup, log: log, hosts: len(hosts),
		failing: make(map[string]error), tried: make(map[string]bool)}
}

// resolve returns host's addresses in a random order.
func (r *resolver) resolve(ctx context.Context, host string) ([]string, error) {
	if net.ParseIP(host) != nil {
		return []string{host}, nil
	}
	lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	addrs, err := r.lookup(lctx, host)
	cancel()
	if err == nil && len(addrs) == 0 {
		err = fmt.Errorf("lookup %s: no addresses", host)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err() // the connection is closing: no verdict on the name
	}
	r.mu.Lock()
	r.tried[host] = true
	_, wasFailing := r.failing[host]
	if err != nil {
		r.failing[host] = err
	} else {
		delete(r.failing, host)
	}
	r.mu.Unlock()
	switch {
	case err != nil && !wasFailing:
		r.log.Warn("a ZooKeeper server name does not resolve; trying the others", zap.String("host", host), zap.Error(err))
	case err == nil && wasFailing:
		r.log.Info("a ZooKeeper server name resolves again", zap.String("host", host))
	}
	if err != nil {
		return nil, err
	}
	rand.Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
	return addrs, nil
}

// unresolvable returns, when every host of the connect string failed its
// last lookup, an error matching ErrUnresolvable and the lookup error of one
// of them; else nil.
func (r *resolver) unresolvable() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.tried) < r.hosts || len(r.failing) < r.hosts {
		return nil
	}
	names := make([]string, 0, len(r.failing))
	var last error
	for host := range r.failing {
		names = append(names, host)
	}
	slices.Sort(names)
	last = r.failing[names[len(names)-1]]
	return fmt.Errorf("%w (%s): %w", ErrUnresolvable, strings.Join(names, ", "), last)
}
