package zktest

import (
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// tlsDial is a go-zookeeper dialer that speaks TLS with cfg.
func tlsDial(cfg *tls.Config) zk.Dialer {
	return func(network, addr string, timeout time.Duration) (net.Conn, error) {
		d := &net.Dialer{Timeout: 10 * time.Second}
		return tls.DialWithDialer(d, network, addr, cfg)
	}
}

// connectTLS opens a session over TLS with cfg and waits until it has one.
func connectTLS(t *testing.T, addrs string, cfg *tls.Config) *zk.Conn {
	t.Helper()
	conn, events, err := zk.Connect(strings.Split(addrs, ","), 10*time.Second,
		zk.WithLogger(quietLogger{}), zk.WithDialer(tlsDial(cfg)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return conn
			}
		case <-timeout:
			t.Fatalf("no session over TLS with %s within 20s", addrs)
		}
	}
}

func TestTLSServerNeedsClientCertificate(t *testing.T) {
	ca := StartCA(t, "test")
	srv := StartServer(t, WithTLS(ca, ClientAuthNeed))
	if srv.SecureAddr() == "" || srv.SecureAddr() == srv.Addr() {
		t.Fatalf("SecureAddr %q beside Addr %q", srv.SecureAddr(), srv.Addr())
	}
	alice, err := ca.Client("alice")
	if err != nil {
		t.Fatal(err)
	}
	conn := connectTLS(t, srv.SecureAddr(), ca.ClientConfig(alice))
	// The x509 provider makes the certificate's subject the session's identity.
	acl := []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: alice.Subject}}
	if _, err := conn.Create("/mine", []byte("x"), 0, acl); err != nil {
		t.Fatalf("create with an x509 ACL for %s: %v", alice.Subject, err)
	}
	if _, _, err := conn.Get("/mine"); err != nil {
		t.Fatalf("read own node: %v", err)
	}

	// Without a client certificate the handshake is refused.
	cfg := ca.ClientConfig(nil)
	raw, err := net.DialTimeout("tcp", srv.SecureAddr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tc := tls.Client(raw, withServerName(cfg))
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	err = tc.Handshake()
	if err == nil {
		// TLS 1.3: the refusal arrives with the first read.
		_, err = tc.Read(make([]byte, 1))
	}
	var netErr net.Error
	if err == nil || errors.As(err, &netErr) && netErr.Timeout() {
		t.Fatalf("a client without a certificate was not refused: %v", err)
	}
}

func withServerName(cfg *tls.Config) *tls.Config {
	cfg.ServerName = "127.0.0.1"
	return cfg
}

func TestTLSClusterServesSecureClients(t *testing.T) {
	ca := StartCA(t, "test")
	c := StartCluster(t, 3, WithTLS(ca, ClientAuthWant))
	addrs := strings.Split(c.SecureConnectString(), ",")
	if len(addrs) != 3 {
		t.Fatalf("SecureConnectString %q: want 3 addresses", c.SecureConnectString())
	}
	// ClientAuthWant lets a client without a certificate in.
	writer := connectTLS(t, addrs[0], ca.ClientConfig(nil))
	if _, err := writer.Create("/shared", []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	bob, err := ca.Client("bob")
	if err != nil {
		t.Fatal(err)
	}
	reader := connectTLS(t, addrs[2], ca.ClientConfig(bob))
	if _, err := reader.Sync("/shared"); err != nil {
		t.Fatal(err)
	}
	if data, _, err := reader.Get("/shared"); err != nil || string(data) != "v" {
		t.Fatalf("Get on another member = %q, %v", data, err)
	}
}

func TestWithTLSRejectsBadClientAuth(t *testing.T) {
	ca := StartCA(t, "test")
	if _, err := NewServer(WithTLS(ca, "sometimes")); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Fatalf("NewServer with client auth \"sometimes\" = %v, want an error naming it", err)
	}
	if _, err := NewServer(WithTLS(nil, ClientAuthNone)); err == nil {
		t.Fatal("NewServer with a nil CA succeeded")
	}
}

func TestTLSServerWithoutClientAuth(t *testing.T) {
	ca := StartCA(t, "test")
	srv := StartServer(t, WithTLS(ca, ClientAuthNone))
	conn := connectTLS(t, srv.SecureAddr(), ca.ClientConfig(nil))
	if _, err := conn.Create("/plain", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	// Only the CA's server certificate is trusted: another CA's client
	// refuses the server.
	other := StartCA(t, "other")
	_, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", srv.SecureAddr(), other.ClientConfig(nil))
	if err == nil {
		t.Fatal("a client trusting another CA accepted the server")
	}
}
