package security_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// labelRecorder is a framework.Metrics that keeps every label it is given.
type labelRecorder struct {
	mu     sync.Mutex
	labels []string
}

type nopInstrument struct{}

func (nopInstrument) Add(float64)     {}
func (nopInstrument) Observe(float64) {}

func (r *labelRecorder) record(name string, labels []framework.Label) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range labels {
		r.labels = append(r.labels, name+"{"+l.Name+"="+l.Value+"}")
	}
}

func (r *labelRecorder) Counter(name string, l ...framework.Label) framework.Counter {
	r.record(name, l)
	return nopInstrument{}
}

func (r *labelRecorder) Histogram(name string, l ...framework.Label) framework.Histogram {
	r.record(name, l)
	return nopInstrument{}
}

func (r *labelRecorder) Gauge(name string, l ...framework.Label) framework.Gauge {
	r.record(name, l)
	return nopInstrument{}
}

// secretsOf returns the strings that must never be shown: the password, PEM
// headers of keys and certificates, and every base64 line of cert's files.
func secretsOf(t *testing.T, password string, cert *zktest.Cert) []string {
	lines, err := cert.PEMLines()
	if err != nil {
		t.Fatal(err)
	}
	return append(lines, password, "BEGIN PRIVATE KEY", "BEGIN CERTIFICATE")
}

// TestNoCredentialInLogsErrorsOrMetricLabels runs clients at debug level
// through success and failure (digest auth, mutual TLS, creator ACLs, a
// refused TLS handshake, a refused operation) and greps every log line,
// error and metric label for the password and the key and certificate.
func TestNoCredentialInLogsErrorsOrMetricLabels(t *testing.T) {
	ca := zktest.StartCA(t, "zk")
	srv := zktest.StartServer(t, zktest.WithTLS(ca, zktest.ClientAuthNeed))
	cert, err := ca.Client("svc")
	if err != nil {
		t.Fatal(err)
	}
	const password = "pa55-w0rd-never-shown"
	core, logs := observer.New(zapcore.DebugLevel)
	log := zap.New(core)
	metrics := &labelRecorder{}
	var errs []error
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	newClient := func(cfg *tls.Config, timeout time.Duration, opts ...framework.Option) *framework.Client {
		c, err := framework.NewClient(srv.SecureAddr(), retry.NTimes{N: 1, Sleep: 10 * time.Millisecond}, append([]framework.Option{
			framework.WithLogger(log), framework.WithMetrics(metrics), framework.WithTLS(cfg),
			framework.WithConnectionTimeout(timeout), framework.WithSessionTimeout(2 * time.Second),
		}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c
	}

	owner := newClient(ca.ClientConfig(cert), 10*time.Second,
		framework.WithAuth("digest", []byte("svc:"+password)),
		framework.WithACLProvider(framework.DigestACLProvider("svc", password)))
	m := newMutex(t, owner, "/secrets/lock")
	if err := m.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	errs = append(errs, m.Release(ctx))

	// A client whose certificate another CA signed, and one without digest
	// auth that touches the owner's node.
	other := zktest.StartCA(t, "other")
	stranger, err := other.Client("svc")
	if err != nil {
		t.Fatal(err)
	}
	strangerCfg := ca.ClientConfig(nil)
	strangerCfg.Certificates = []tls.Certificate{stranger.TLS}
	refused := newClient(strangerCfg, time.Second)
	_, err = refused.Create(ctx, "/secrets/x", nil)
	errs = append(errs, err)
	outsider := newClient(ca.ClientConfig(cert), 10*time.Second)
	errs = append(errs, outsider.Delete(ctx, "/secrets", framework.DeletingChildrenIfNeeded()))

	var seen []string
	for _, e := range logs.All() {
		seen = append(seen, fmt.Sprintf("%s %v", e.Message, e.ContextMap()))
	}
	for _, err := range errs {
		if err != nil {
			seen = append(seen, err.Error())
		}
	}
	seen = append(seen, metrics.labels...)
	if len(logs.All()) == 0 || len(metrics.labels) == 0 {
		t.Fatalf("nothing to check: %d log lines, %d labels", len(logs.All()), len(metrics.labels))
	}
	for _, secret := range secretsOf(t, password, cert) {
		for _, s := range seen {
			if strings.Contains(s, secret) {
				t.Errorf("%q shows secret material %q", s, secret)
			}
		}
	}
	t.Logf("checked %d log lines, %d errors and %d metric labels", len(logs.All()), len(errs), len(metrics.labels))
}
