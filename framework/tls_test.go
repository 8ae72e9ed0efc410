package framework_test

import (
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"sync"
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

// tlsWorld is a TLS-enabled server, its CA and a client certificate it trusts.
type tlsWorld struct {
	ca    *zktest.CA
	srv   *zktest.Server
	alice *zktest.Cert
}

func startTLSWorld(t *testing.T, auth zktest.ClientAuth) tlsWorld {
	t.Helper()
	ca := zktest.StartCA(t, "zk")
	w := tlsWorld{ca: ca, srv: zktest.StartServer(t, zktest.WithTLS(ca, auth))}
	w.alice = mustCert(t)(ca.Client("alice"))
	return w
}

// mustCert fails the test when a certificate could not be issued.
func mustCert(t *testing.T) func(*zktest.Cert, error) *zktest.Cert {
	return func(c *zktest.Cert, err error) *zktest.Cert {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// TestTLSRefusesOutsiders: against a server that requires client
// certificates, every client that should not get in is refused within the
// connection timeout with an error that counts as a connection loss, one log
// line that names the server and the cause, and nothing left on the server.
func TestTLSRefusesOutsiders(t *testing.T) {
	w := startTLSWorld(t, zktest.ClientAuthNeed)
	other := zktest.StartCA(t, "other")
	stranger := mustCert(t)(other.Client("alice"))
	expired := mustCert(t)(w.ca.ExpiredClient("alice"))

	withCert := func(c *zktest.Cert) *tls.Config {
		cfg := w.ca.ClientConfig(nil)
		cfg.Certificates = []tls.Certificate{c.TLS}
		return cfg
	}
	wrongName := w.ca.ClientConfig(w.alice)
	wrongName.ServerName = "zookeeper.example"

	cases := []struct {
		name    string
		connect string
		tls     *tls.Config // nil: plaintext
		cause   string      // "" when no TLS line is logged
	}{
		{"NoClientCertificate", w.srv.SecureAddr(), w.ca.ClientConfig(nil), "client certificate"},
		{"CertificateFromAnotherCA", w.srv.SecureAddr(), withCert(stranger), "client certificate"},
		{"ExpiredCertificate", w.srv.SecureAddr(), withCert(expired), "client certificate"},
		{"UnknownServerAuthority", w.srv.SecureAddr(), other.ClientConfig(stranger), "unknown authority"},
		{"NameMismatch", w.srv.SecureAddr(), wrongName, "name mismatch"},
		{"TLSToPlaintextPort", w.srv.Addr(), w.ca.ClientConfig(w.alice), "closed the connection"},
		{"PlaintextToSecurePort", w.srv.SecureAddr(), nil, ""},
	}
	// The server's first TLS handshake (the JVM loading its TLS stack) can
	// take seconds on a busy machine: an insider takes it, so that each case
	// below measures its refusal within the connection timeout.
	insider := newClient(t, w.srv.SecureAddr(), framework.WithTLS(w.ca.ClientConfig(w.alice)))
	const connTimeout = 2 * time.Second
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.DebugLevel)
			opts := []framework.Option{framework.WithLogger(zap.New(core))}
			if tc.tls != nil {
				opts = append(opts, framework.WithTLS(tc.tls))
			}
			c, err := framework.NewClient(tc.connect, retry.NTimes{N: 0},
				append(opts, framework.WithConnectionTimeout(connTimeout), framework.WithSessionTimeout(testSessionTimeout))...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = c.Create(testCtx(t), "/outsider-"+tc.name, nil)
			took := time.Since(start)
			if !errors.Is(err, framework.ErrNotConnected) || !errors.Is(err, zk.ErrConnectionClosed) {
				t.Fatalf("Create = %v; want ErrNotConnected, a connection loss", err)
			}
			if took > connTimeout+2*time.Second {
				t.Fatalf("refusal took %v; want about the connection timeout %v", took, connTimeout)
			}
			failures := logs.FilterMessage("TLS connection to ZooKeeper failed; retrying").All()
			if tc.cause == "" {
				if len(failures) != 0 {
					t.Fatalf("plaintext client logged TLS failures: %v", failures)
				}
				return
			}
			if len(failures) != 1 {
				t.Fatalf("%d error lines for the failed handshakes; want exactly 1 (%v)", len(failures), logs.All())
			}
			fields := failures[0].ContextMap()
			if fields["server"] != tc.connect || !strings.Contains(fields["cause"].(string), tc.cause) {
				t.Fatalf("log fields %v; want server %s and a cause naming %q", fields, tc.connect, tc.cause)
			}
		})
	}

	// Nothing any outsider tried to create is on the server.
	children, _, err := insider.Children(testCtx(t), "/")
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range children {
		if strings.HasPrefix(ch, "outsider-") {
			t.Errorf("outsider's node /%s is on the server", ch)
		}
	}
}

// TestTLSErrorNamesServerAndCause: the error a failed handshake returns to
// the dialer matches ErrTLSHandshake and the crypto error, and names both.
func TestTLSErrorNamesServerAndCause(t *testing.T) {
	w := startTLSWorld(t, zktest.ClientAuthNeed)
	other := zktest.StartCA(t, "other")
	dial := framework.DialTLS(nil, other.ClientConfig(nil))
	_, err := dial("tcp", w.srv.SecureAddr(), time.Second)
	var te *framework.TLSError
	if !errors.Is(err, framework.ErrTLSHandshake) || !errors.As(err, &te) {
		t.Fatalf("dial = %v; want a *TLSError matching ErrTLSHandshake", err)
	}
	if te.Addr != w.srv.SecureAddr() || !strings.Contains(err.Error(), w.srv.SecureAddr()) || !strings.Contains(te.Cause, "unknown authority") {
		t.Fatalf("error %q (cause %q); want the server %s and unknown authority", err, te.Cause, w.srv.SecureAddr())
	}
}

// TestTLSClientCertificateReload: a GetClientCertificate callback is asked
// on each new connection, so a certificate replaced on disk is used without
// a restart: after a reconnection the session is bob's, not alice's.
func TestTLSClientCertificateReload(t *testing.T) {
	w := startTLSWorld(t, zktest.ClientAuthNeed)
	bob := mustCert(t)(w.ca.Client("bob"))
	proxy := zktest.StartProxy(t, w.srv.SecureAddr())
	var mu sync.Mutex
	current := w.alice
	cfg := w.ca.ClientConfig(nil)
	cfg.ServerName = "127.0.0.1" // the proxy's address is not the server's
	cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		mu.Lock()
		defer mu.Unlock()
		return &current.TLS, nil
	}
	c := newClient(t, proxy.Addr(), framework.WithTLS(cfg))
	ctx := testCtx(t)
	if _, err := c.Create(ctx, "/alice-only", nil, framework.WithACL(framework.CreatorAllACL()...)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.GetData(ctx, "/alice-only"); err != nil {
		t.Fatalf("alice reads her node: %v", err)
	}
	mu.Lock()
	current = bob
	mu.Unlock()
	proxy.Sever()
	eventually(t, "a read as bob refused", func() bool {
		_, _, err := c.GetData(ctx, "/alice-only")
		return errors.Is(err, zk.ErrNoAuth)
	})
}

func TestWithTLSRefusesNilConfig(t *testing.T) {
	_, err := framework.NewClient("127.0.0.1:2181", testPolicy, framework.WithTLS(nil))
	if !errors.Is(err, framework.ErrInvalidArgument) || !strings.Contains(err.Error(), "TLS") {
		t.Fatalf("WithTLS(nil) = %v; want ErrInvalidArgument naming TLS", err)
	}
}

func TestWithAuthRefusesSASLAndX509(t *testing.T) {
	for _, scheme := range []string{"sasl", "SASL", "kerberos"} {
		_, err := framework.NewClient("127.0.0.1:2181", testPolicy, framework.WithAuth(scheme, []byte("user")))
		if !errors.Is(err, framework.ErrSASLUnsupported) || !errors.Is(err, framework.ErrInvalidArgument) {
			t.Errorf("WithAuth(%q) = %v; want ErrSASLUnsupported", scheme, err)
		}
	}
	_, err := framework.NewClient("127.0.0.1:2181", testPolicy, framework.WithAuth("x509", nil))
	if !errors.Is(err, framework.ErrInvalidArgument) || !strings.Contains(err.Error(), "WithTLS") {
		t.Errorf("WithAuth(x509) = %v; want ErrInvalidArgument pointing at WithTLS", err)
	}
}

// Close ends a TLS handshake under way: against a server that accepts the
// connection and never answers, Close returns well within the bound it keeps
// against a silent plain-TCP server (TestCloseBoundedWhileServerSilent).
func TestCloseEndsATLSHandshakeUnderWay(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- conn // held open, never answered
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		close(accepted)
		for conn := range accepted {
			conn.Close()
		}
	})

	ca := zktest.StartCA(t, "zk")
	c, err := framework.NewClient(ln.Addr().String(), testPolicy,
		framework.WithTLS(ca.ClientConfig(nil)), framework.WithSessionTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var first net.Conn
	select {
	case first = <-accepted:
	case <-time.After(testWait):
		t.Fatal("the client never dialed")
	}
	defer first.Close()
	began := time.Now()
	c.Close()
	took := time.Since(began)
	t.Logf("Close during a TLS handshake took %v", took)
	if took > 2*time.Second {
		t.Fatalf("Close during a TLS handshake took %v, want well within 5 s", took)
	}
}
