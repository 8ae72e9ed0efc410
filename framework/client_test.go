package framework_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

func TestNewClientValidation(t *testing.T) {
	for _, tc := range []struct {
		connect string
		policy  retry.Policy
		opts    []framework.Option
		want    string
	}{
		{"", testPolicy, nil, "connect string is empty"},
		{"127.0.0.1:2181/chroot/", testPolicy, nil, `chroot "/chroot/"`},
		{"127.0.0.1:2181/a//b", testPolicy, nil, `chroot "/a//b"`},
		{"127.0.0.1:2181,,127.0.0.1:2182", testPolicy, nil, "empty server"},
		{"127.0.0.1:2181,127.0.0.1:abc", testPolicy, nil, `port "abc"`},
		{"127.0.0.1:65536", testPolicy, nil, `port "65536"`},
		{"127.0.0.1:0", testPolicy, nil, `port "0"`},
		{"127.0.0.1:-1", testPolicy, nil, `port "-1"`},
		{":2181", testPolicy, nil, `":2181" has an empty host`},
		{"[::1:2181", testPolicy, nil, `"[::1:2181"`},
		{"127.0.0.1:2181", nil, nil, "retry policy"},
		{"127.0.0.1:2181", retry.NTimes{N: -1}, nil, "NTimes.N"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithSessionTimeout(0)}, "session timeout"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithSessionTimeout(-time.Second)}, "session timeout -1s"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithSessionTimeout(597 * time.Hour)}, "session timeout 597h0m0s"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithSessionTimeout(1 << 31 * time.Millisecond)}, "session timeout 596h31m23.648s"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithConnectionTimeout(-time.Second)}, "connection timeout -1s"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithConnectionTimeout(0)}, "connection timeout 0s"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithConnectionTimeout(597 * time.Hour)}, "connection timeout 597h0m0s"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithNamespace("a//b")}, `"a//b"`},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithSimulatedSessionExpirationPercent(101)}, "101"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithSimulatedSessionExpirationPercent(-1)}, "-1"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithErrorPolicy(framework.ErrorPolicy(7))}, "7"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithACLProvider(nil)}, "ACL provider"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{framework.WithAuth("", nil)}, "auth scheme"},
		{"127.0.0.1:2181", testPolicy, []framework.Option{nil}, "option 0 is nil"},
	} {
		c, err := framework.NewClient(tc.connect, tc.policy, tc.opts...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrInvalidArgument) {
			t.Errorf("NewClient(%q, %#v, ...) = %v, %v; want an ErrInvalidArgument containing %q", tc.connect, tc.policy, c, err, tc.want)
		}
	}
}

// The limits themselves, a server without a port (go-zookeeper's 2181) and an IPv6
// host in brackets are accepted.
func TestNewClientAcceptsLimits(t *testing.T) {
	for _, tc := range []struct {
		connect string
		opts    []framework.Option
	}{
		{"localhost", nil},
		{"[::1]:2181,127.0.0.1:65535", nil},
		{"127.0.0.1:1", []framework.Option{framework.WithSessionTimeout(time.Millisecond), framework.WithConnectionTimeout(time.Millisecond)}},
		{"127.0.0.1:1", []framework.Option{framework.WithSessionTimeout(math.MaxInt32 * time.Millisecond),
			framework.WithConnectionTimeout(math.MaxInt32 * time.Millisecond)}},
	} {
		c, err := framework.NewClient(tc.connect, testPolicy, tc.opts...)
		if err != nil {
			t.Errorf("NewClient(%q) = %v", tc.connect, err)
			continue
		}
		c.Close()
	}
}

// NewClient does no network I/O: nothing listens on the address.
func TestNewClientIsLazy(t *testing.T) {
	c, err := framework.NewClient("127.0.0.1:1", testPolicy, framework.WithNamespace("a/b"),
		framework.WithErrorPolicy(framework.SessionErrorPolicy), framework.WithSessionTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Conn() != nil || c.State() != 0 || c.SessionID() != 0 {
		t.Fatal("NewClient connected")
	}
	if c.ErrorPolicy() != framework.SessionErrorPolicy || c.Namespace() != "a/b" || c.SessionTimeout() != 5*time.Second {
		t.Fatal("options not applied")
	}
	if c.Logger() == nil {
		t.Fatal("Logger() is nil")
	}
}

func TestRetryLoop(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)

	var calls atomic.Int64
	err := c.RetryLoop(ctx, func(context.Context) error {
		if calls.Add(1) < 3 {
			return zk.ErrConnectionClosed
		}
		return nil
	})
	if err != nil || calls.Load() != 3 {
		t.Fatalf("RetryLoop = %v after %d calls, want success after 3", err, calls.Load())
	}

	calls.Store(0)
	err = c.RetryLoop(ctx, func(context.Context) error { calls.Add(1); return zk.ErrNoNode })
	if !errors.Is(err, zk.ErrNoNode) || calls.Load() != 1 {
		t.Fatalf("RetryLoop = %v after %d calls, want zk.ErrNoNode after 1", err, calls.Load())
	}

	calls.Store(0)
	err = c.RetryLoop(ctx, func(context.Context) error { calls.Add(1); return zk.ErrSessionMoved })
	if !errors.Is(err, zk.ErrSessionMoved) || calls.Load() != int64(testPolicy.N+1) {
		t.Fatalf("RetryLoop = %v after %d calls, want zk.ErrSessionMoved after %d", err, calls.Load(), testPolicy.N+1)
	}

	short, cancel := context.WithCancel(ctx)
	calls.Store(0)
	err = c.RetryLoop(short, func(context.Context) error {
		if calls.Add(1) == 2 {
			cancel()
		}
		return zk.ErrConnectionClosed
	})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, zk.ErrConnectionClosed) || calls.Load() != 2 {
		t.Fatalf("RetryLoop = %v after %d calls, want the cancellation after 2", err, calls.Load())
	}
}

func TestWatches(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	st, created, err := c.ExistsW(ctx, path)
	if err != nil || st != nil {
		t.Fatalf("ExistsW = %+v, %v", st, err)
	}
	if _, err := c.Create(ctx, path, []byte("a")); err != nil {
		t.Fatal(err)
	}
	awaitEvent(t, created, zk.EventNodeCreated)
	_, _, changed, err := c.GetDataW(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, children, err := c.ChildrenW(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetData(ctx, path, []byte("b"), -1); err != nil {
		t.Fatal(err)
	}
	awaitEvent(t, changed, zk.EventNodeDataChanged)
	if _, err := c.Create(ctx, path+"/c", nil); err != nil {
		t.Fatal(err)
	}
	awaitEvent(t, children, zk.EventNodeChildrenChanged)
}

func awaitEvent(t *testing.T, ch <-chan zk.Event, want zk.EventType) {
	t.Helper()
	select {
	case ev := <-ch:
		if ev.Type != want {
			t.Fatalf("event %v, want %v", ev.Type, want)
		}
	case <-time.After(testWait):
		t.Fatalf("no %v event", want)
	}
}

// TTL nodes need a server with extended types; validation happens before the network.
func TestTTL(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithExtendedTypes(), zktest.WithContainerCheckInterval(200*time.Millisecond))
	c := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path, err := c.Create(ctx, "/ttl-", []byte("x"), framework.WithMode(framework.PersistentSequentialWithTTL),
		framework.WithTTL(300*time.Millisecond))
	if err != nil {
		t.Fatalf("TTL create: %v", err)
	}
	if st, err := c.Exists(ctx, path); err != nil || st == nil {
		t.Fatalf("TTL node: %+v, %v", st, err)
	}
	eventually(t, "the TTL node to expire", func() bool {
		st, err := c.Exists(ctx, path)
		return err == nil && st == nil
	})
}

// go-zookeeper's own messages reach the client's logger at debug level.
func TestLoggerAdapter(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	newClient(t, sharedServer(t).ConnectString(), framework.WithLogger(zap.New(core)))
	eventually(t, "go-zookeeper's connect message", func() bool {
		return logs.FilterMessageSnippet("zk: connected to").FilterLevelExact(zapcore.DebugLevel).Len() > 0
	})
	if logs.FilterMessage("connection state changed").Len() == 0 {
		t.Fatal("state changes are not logged")
	}
}

// SessionTimeout reports what the server granted: zktest's server grants at least two
// ticks (400 ms).
func TestNegotiatedSessionTimeout(t *testing.T) {
	c := newClient(t, sharedServer(t).ConnectString(), framework.WithSessionTimeout(100*time.Millisecond))
	eventually(t, "the negotiated session timeout", func() bool { return c.SessionTimeout() == 400*time.Millisecond })
}
