package framework_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// shared is one ZooKeeper server for the tests that do not stop or restart theirs;
// it starts on first use and stops after the last test.
var shared struct {
	once sync.Once
	srv  *zktest.Server
	err  error
}

func sharedServer(t testing.TB) *zktest.Server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = zktest.NewServer() })
	if shared.err != nil {
		t.Fatalf("cannot start ZooKeeper for the tests: %v", shared.err)
	}
	return shared.srv
}

type withSharedServer struct{ m *testing.M }

func (w withSharedServer) Run() int {
	code := w.m.Run()
	if shared.srv != nil {
		if err := shared.srv.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing the shared ZooKeeper: %v\n", err)
		}
	}
	return code
}

// TestMain fails the run if any goroutine (ours or go-zookeeper's) outlives the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(withSharedServer{m})
}

// Timings used throughout: the server's tick is 200 ms, so a 1 s session timeout is
// honoured as is.
const (
	testSessionTimeout    = time.Second
	testConnectionTimeout = 3 * time.Second
	testWait              = 15 * time.Second // bound of every condition the tests await
)

var testPolicy = retry.NTimes{N: 5, Sleep: 100 * time.Millisecond}

// newClient starts a client on connect and waits until it is connected. Close runs at
// the end of the test.
func newClient(t testing.TB, connect string, opts ...framework.Option) *framework.Client {
	t.Helper()
	c := newUnstartedClient(t, connect, opts...)
	if err := c.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if err := c.BlockUntilConnected(ctx); err != nil {
		t.Fatalf("BlockUntilConnected: %v", err)
	}
	return c
}

func newUnstartedClient(t testing.TB, connect string, opts ...framework.Option) *framework.Client {
	t.Helper()
	return newUnstartedClientPolicy(t, connect, testPolicy, opts...)
}

// newUnstartedClientPolicy is newUnstartedClient with a retry policy of its own.
func newUnstartedClientPolicy(t testing.TB, connect string, policy retry.Policy, opts ...framework.Option) *framework.Client {
	t.Helper()
	base := []framework.Option{
		framework.WithSessionTimeout(testSessionTimeout),
		framework.WithConnectionTimeout(testConnectionTimeout),
	}
	c, err := framework.NewClient(connect, policy, append(base, opts...)...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// testRoot returns a path unique to the test, so tests sharing a server do not meet.
func testRoot(t *testing.T) string {
	return "/" + unsafeChars.ReplaceAllString(t.Name(), "_")
}

func testCtx(t *testing.T) context.Context { return zktest.Context(t, testWait) }

// eventually polls cond until it holds or testWait passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", testWait, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// deadAddr returns a 127.0.0.1 address where nothing listens.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
