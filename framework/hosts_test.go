package framework_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// fakeDNS resolves the names it holds to 127.0.0.1 and fails for the others,
// as a resolver does for a StatefulSet member not yet scheduled.
type fakeDNS struct {
	mu      sync.Mutex
	known   map[string]bool
	lookups map[string]int
}

func newFakeDNS(known ...string) *fakeDNS {
	d := &fakeDNS{known: make(map[string]bool), lookups: make(map[string]int)}
	for _, h := range known {
		d.known[h] = true
	}
	return d
}

func (d *fakeDNS) lookup(_ context.Context, host string) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lookups[host]++
	if d.known[host] {
		return []string{"127.0.0.1"}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (d *fakeDNS) add(host string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.known[host] = true
}

func (d *fakeDNS) count(host string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lookups[host]
}

// port returns the port of a "host:port" connect string of one server.
func port(t *testing.T, hostport string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(hostport)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A name that does not resolve is skipped, with one warning naming it, and
// the client connects to the others.
func TestUnresolvableServerIsSkipped(t *testing.T) {
	srv := sharedServer(t)
	dns := newFakeDNS("zk-1.zk.example")
	core, logs := observer.New(zapcore.WarnLevel)
	connect := "zk-0.zk.example:2181,zk-1.zk.example:" + port(t, srv.ConnectString())
	c := newUnstartedClient(t, connect, framework.WithLookup(dns.lookup), framework.WithLogger(zap.New(core)))
	if err := c.Start(); err != nil {
		t.Fatalf("Start with a name that does not resolve: %v", err)
	}
	if err := c.BlockUntilConnected(testCtx(t)); err != nil {
		t.Fatalf("BlockUntilConnected: %v", err)
	}
	if _, err := c.Exists(testCtx(t), "/"); err != nil {
		t.Fatal(err)
	}
	warned := logs.FilterMessageSnippet("does not resolve").All()
	if dns.count("zk-0.zk.example") > 0 && (len(warned) != 1 || warned[0].ContextMap()["host"] != "zk-0.zk.example") {
		t.Fatalf("warnings = %v; want one naming zk-0.zk.example", warned)
	}
}

// The system's resolver is used by default: a name from /etc/hosts connects.
func TestServerNameResolvedBySystem(t *testing.T) {
	srv := sharedServer(t)
	c := newClient(t, "localhost:"+port(t, srv.ConnectString()))
	if _, err := c.Exists(testCtx(t), "/"); err != nil {
		t.Fatal(err)
	}
}

// When no name resolves, Start still succeeds and an operation fails within
// its connection timeout and retries with ErrNotConnected that says no name
// resolves and names them.
func TestOnlyUnresolvableServersFail(t *testing.T) {
	dns := newFakeDNS()
	const connTimeout = time.Second
	core, logs := observer.New(zapcore.WarnLevel)
	c := newUnstartedClientPolicy(t, "zk-0.zk.example:2181,zk-1.zk.example:2181", retry.OneTime{Sleep: 10 * time.Millisecond},
		framework.WithLookup(dns.lookup), framework.WithConnectionTimeout(connTimeout), framework.WithLogger(zap.New(core)))
	if err := c.Start(); err != nil {
		t.Fatalf("Start: %v; want nil (names are resolved at each attempt)", err)
	}
	began := time.Now()
	_, err := c.Exists(testCtx(t), "/")
	took := time.Since(began)
	if !errors.Is(err, framework.ErrNotConnected) || !errors.Is(err, framework.ErrUnresolvable) {
		t.Fatalf("Exists = %v; want ErrNotConnected and ErrUnresolvable", err)
	}
	for _, want := range []string{"zk-0.zk.example", "zk-1.zk.example", "no such host"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	// Two attempts, each waiting for the connection timeout, and the sleep.
	if bound := 2*connTimeout + time.Second; took > bound {
		t.Fatalf("Exists took %v, want at most %v", took, bound)
	}
	// One warning per name, however often it was looked up.
	for _, host := range []string{"zk-0.zk.example", "zk-1.zk.example"} {
		n := 0
		for _, e := range logs.FilterMessageSnippet("does not resolve").All() {
			if e.ContextMap()["host"] == host {
				n++
			}
		}
		if n != 1 || dns.count(host) < 2 {
			t.Errorf("%s: %d warnings after %d lookups; want 1 after at least 2", host, n, dns.count(host))
		}
	}
}

// A name that starts resolving after Start is used: names are resolved again
// at each attempt.
func TestServerNameResolvingLaterIsUsed(t *testing.T) {
	srv := sharedServer(t)
	dns := newFakeDNS()
	c := newUnstartedClient(t, "zk-late.zk.example:"+port(t, srv.ConnectString()), framework.WithLookup(dns.lookup))
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a failed lookup", func() bool { return dns.count("zk-late.zk.example") > 0 })
	dns.add("zk-late.zk.example")
	if err := c.BlockUntilConnected(testCtx(t)); err != nil {
		t.Fatalf("BlockUntilConnected once the name resolves: %v", err)
	}
}
