package framework_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/testhook"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// errorSink collects what ListenErrors delivers.
type errorSink struct {
	mu   sync.Mutex
	errs []error
}

func (s *errorSink) add(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, err)
}

func (s *errorSink) all() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

// await waits for an error matching target and returns it.
func (s *errorSink) await(t *testing.T, target error) error {
	t.Helper()
	var found error
	eventually(t, "an error matching "+target.Error(), func() bool {
		for _, err := range s.all() {
			if errors.Is(err, target) {
				found = err
				return true
			}
		}
		return false
	})
	return found
}

// Errors reported are delivered in order, counted, and not delivered after
// stop.
func TestListenErrorsInOrder(t *testing.T) {
	rec := metricstest.New()
	c := newClient(t, sharedServer(t).ConnectString(), framework.WithMetrics(rec))
	var sink errorSink
	stop := c.ListenErrors(sink.add)
	errA, errB := errors.New("a"), errors.New("b")
	c.ReportError(errA)
	c.ReportError(nil)
	c.ReportError(errB)
	eventually(t, "two errors", func() bool { return len(sink.all()) == 2 })
	if got := sink.all(); got[0] != errA || got[1] != errB {
		t.Fatalf("errors = %v, want [a b]", got)
	}
	stop()
	c.ReportError(errors.New("after stop"))
	if got := rec.Value(framework.MetricUnhandledErrors); got != 3 {
		t.Fatalf("%s = %v, want 3", framework.MetricUnhandledErrors, got)
	}
	c.ReportError(errA) // a second listener sees only what comes after it
	var later errorSink
	defer c.ListenErrors(later.add)()
	c.ReportError(errB)
	eventually(t, "the later listener's error", func() bool { return len(later.all()) == 1 })
	if got := later.all(); got[0] != errB {
		t.Fatalf("later listener got %v, want [b]", got)
	}
	if got := sink.all(); len(got) != 2 {
		t.Fatalf("a stopped listener got %v", got)
	}
}

// A failed TLS handshake reaches ListenErrors without any logger.
func TestListenErrorsTLSHandshake(t *testing.T) {
	w := startTLSWorld(t, zktest.ClientAuthNeed)
	other := zktest.StartCA(t, "other")
	c := newUnstartedClient(t, w.srv.SecureAddr(), framework.WithTLS(other.ClientConfig(nil)))
	var sink errorSink
	defer c.ListenErrors(sink.add)()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	err := sink.await(t, framework.ErrTLSHandshake)
	var te *framework.TLSError
	if !errors.As(err, &te) || te.Addr != w.srv.SecureAddr() || !strings.Contains(te.Cause, "unknown authority") {
		t.Fatalf("reported %v; want a *TLSError naming %s and the unknown authority", err, w.srv.SecureAddr())
	}
}

// A guaranteed delete the client gives up in the background (the node got a
// child meanwhile) reaches ListenErrors, naming the path and the cause.
func TestListenErrorsAbandonedGuaranteedDelete(t *testing.T) {
	srv := sharedServer(t)
	observer := newClient(t, srv.ConnectString())
	ctx := testCtx(t)
	path := testRoot(t)
	if _, err := observer.Create(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	p := zktest.StartProxy(t, srv.ConnectString())
	c := newClient(t, p.Addr()+","+p.Addr(), framework.WithSessionTimeout(4*time.Second))
	var sink errorSink
	defer c.ListenErrors(sink.add)()

	resume := testhook.HoldBackground(c)
	heldDeleteFails(t, p, c, path, framework.Guaranteed())
	if _, err := observer.Create(ctx, path+"/child", nil); err != nil {
		t.Fatal(err)
	}
	<-resume()
	err := sink.await(t, framework.ErrGuaranteedAbandoned)
	if !errors.Is(err, zk.ErrNotEmpty) || !strings.Contains(err.Error(), path) {
		t.Fatalf("reported %v; want zk.ErrNotEmpty naming %s", err, path)
	}
	if strings.Count(err.Error(), "framework: ") != 1 {
		t.Fatalf("error %q names its package more than once", err)
	}
}

// WithSlogLogger sends the client's log to a slog handler, fields as
// attributes.
func TestWithSlogLogger(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	h := slog.NewJSONHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug})
	c := newClient(t, sharedServer(t).ConnectString(), framework.WithSlogLogger(slog.New(h)))
	c.Logger().With(zap.String("recipe", "test")).Warn("a warning", zap.Error(errors.New("boom")))
	if _, err := c.Exists(context.Background(), "/"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	mu.Unlock()
	var sawState, sawWarn bool
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch rec["msg"] {
		case "connection state changed":
			sawState = rec["level"] == "INFO" && rec["state"] == "CONNECTED"
		case "a warning":
			sawWarn = rec["level"] == "WARN" && rec["error"] == "boom" && rec["recipe"] == "test"
		}
	}
	if !sawState || !sawWarn {
		t.Fatalf("slog output lacks the state change or the warning with its fields:\n%s", strings.Join(lines, "\n"))
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
