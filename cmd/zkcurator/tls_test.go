package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// tlsServer is a server that requires client certificates, with its CA and
// a certificate it trusts.
type tlsServer struct {
	ca   *zktest.CA
	srv  *zktest.Server
	cert *zktest.Cert
}

func startTLSServer(t *testing.T) tlsServer {
	t.Helper()
	ca := zktest.StartCA(t, "zk")
	cert, err := ca.Client("cli")
	if err != nil {
		t.Fatal(err)
	}
	return tlsServer{ca: ca, srv: zktest.StartServer(t, zktest.WithTLS(ca, zktest.ClientAuthNeed)), cert: cert}
}

// TestSecurityFlagsRefusedAtOnce: TLS and ACL flags that cannot work end
// zkcurator with status 64 before it connects, on one line naming the flag.
func TestSecurityFlagsRefusedAtOnce(t *testing.T) {
	ca := zktest.StartCA(t, "zk")
	cert, err := ca.Client("cli")
	if err != nil {
		t.Fatal(err)
	}
	connect := []string{"--connect", "127.0.0.1:2181"}
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"cert without CA", []string{"--tls-cert", cert.CertFile, "--tls-key", cert.KeyFile}, "need --tls-ca"},
		{"cert without key", []string{"--tls-ca", ca.CertFile, "--tls-cert", cert.CertFile}, "--tls-cert needs --tls-key"},
		{"key without cert", []string{"--tls-ca", ca.CertFile, "--tls-key", cert.KeyFile}, "--tls-key needs --tls-cert"},
		{"missing CA file", []string{"--tls-ca", "/nonexistent/ca.pem"}, "read --tls-ca"},
		{"CA file not PEM", []string{"--tls-ca", "/etc/hostname"}, "no PEM certificate"},
		{"key not matching", []string{"--tls-ca", ca.CertFile, "--tls-cert", cert.CertFile, "--tls-key", ca.CertFile}, "bad --tls-cert"},
		{"unknown acl", []string{"--acl", "secret"}, `bad --acl "secret"`},
		{"x509 acl without certificate", []string{"--acl", "x509"}, "--acl x509 needs a client certificate"},
		{"creator acl without identity", []string{"--acl", "creator"}, "--acl creator needs an identity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runTool(t, append(append([]string{"participants"}, connect...), append(tc.flags, "/cli/refused")...)...)
			if code != exitUsage || len(toolLines(stderr)) != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("status %d, stderr %q; want %d and one line with %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// TestTLSFailureExitsWithCause: a refused TLS connection ends zkcurator with
// the connection-failure status and one line that names the cause.
func TestTLSFailureExitsWithCause(t *testing.T) {
	s := startTLSServer(t)
	other := zktest.StartCA(t, "other")
	withCert := []string{"--tls-cert", s.cert.CertFile, "--tls-key", s.cert.KeyFile}
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"no client certificate", []string{"--tls-ca", s.ca.CertFile}, "client certificate required"},
		{"unknown authority", append([]string{"--tls-ca", other.CertFile}, withCert...), "unknown authority"},
		{"name mismatch", append([]string{"--tls-ca", s.ca.CertFile, "--tls-server-name", "zk.example"}, withCert...), "name mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"participants", "--connect", s.srv.SecureAddr(), "--connect-timeout", "2s"}, tc.flags...)
			code, stderr := runTool(t, append(args, "/cli/tls")...)
			lines := toolLines(stderr)
			if code != exitUnavailable || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("status %d, stderr %q; want %d and one line naming %q", code, stderr, exitUnavailable, tc.want)
			}
			t.Log(stderr)
		})
	}
}

// TestLockOverTLSWithX509ACL: with the TLS settings from the environment and
// --acl x509, zkcurator holds a lock over mutual TLS on a node only its
// certificate's subject may touch.
func TestLockOverTLSWithX509ACL(t *testing.T) {
	s := startTLSServer(t)
	path := testPath(t)
	env := []string{"ZK_TLS_CA=" + s.ca.CertFile, "ZK_TLS_CERT=" + s.cert.CertFile, "ZK_TLS_KEY=" + s.cert.KeyFile}
	p := startEnv(t, env, append(append([]string{"lock"}, connArgs(s.srv.SecureAddr())...), "--acl", "x509", path, "--", "sleep", "60")...)

	mallory, err := s.ca.Client("mallory")
	if err != nil {
		t.Fatal(err)
	}
	owner, intruder := s.connect(t, s.cert), s.connect(t, mallory)
	var node string
	eventually(t, "zkcurator's lock node", func() bool {
		if p.exited() {
			t.Fatalf("zkcurator exited with %d: %s", p.code, p.stderr.String())
		}
		children, _, err := owner.Children(path)
		if err != nil || len(children) != 1 {
			return false
		}
		node = path + "/" + children[0]
		return true
	})
	for _, n := range []string{path, node} {
		acl, _, err := owner.GetACL(n)
		if err != nil || len(acl) != 1 || acl[0].Scheme != "x509" || acl[0].ID != "CN=cli" {
			t.Fatalf("ACL of %s = %+v, %v; want x509 CN=cli only", n, acl, err)
		}
	}
	if err := intruder.Delete(node, -1); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("mallory deletes %s: %v; want zk.ErrNoAuth", node, err)
	}
	if p.exited() {
		t.Fatalf("zkcurator exited with %d: %s", p.code, p.stderr.String())
	}
}

// connect starts a zkcurator client over TLS with cert and returns its
// go-zookeeper connection, for requests the client does not offer (GetACL).
func (s tlsServer) connect(t *testing.T, cert *zktest.Cert) *zk.Conn {
	t.Helper()
	return zkclient.New(t, s.srv.SecureAddr(), framework.WithTLS(s.ca.ClientConfig(cert))).Conn()
}

// TestVerboseRunShowsNoSecrets: a --verbose run over mutual TLS with digest
// auth and creator ACLs, and one refused for its certificate, print neither
// the password nor any line of the key or certificate files.
func TestVerboseRunShowsNoSecrets(t *testing.T) {
	s := startTLSServer(t)
	other := zktest.StartCA(t, "other")
	stranger, err := other.Client("cli")
	if err != nil {
		t.Fatal(err)
	}
	const password = "n0t-for-any-log"
	tlsArgs := func(c *zktest.Cert) []string {
		return []string{"--tls-ca", s.ca.CertFile, "--tls-cert", c.CertFile, "--tls-key", c.KeyFile}
	}
	base := append([]string{"lock", "--verbose", "--auth", "digest:cli:" + password, "--acl", "creator"}, connArgs(s.srv.SecureAddr())...)
	ok := start(t, append(append(base, tlsArgs(s.cert)...), testPath(t), "--", "true")...)
	if code := ok.wait(t); code != 0 {
		t.Fatalf("lock over TLS exited with %d: %s", code, ok.stderr.String())
	}
	bad := start(t, append(append(base, tlsArgs(stranger)...), "--connect-timeout", "2s", testPath(t), "--", "true")...)
	if code := bad.wait(t); code != exitUnavailable {
		t.Fatalf("lock with another CA's certificate exited with %d: %s", code, bad.stderr.String())
	}
	for _, out := range []string{ok.stderr.String(), ok.stdout.String(), bad.stderr.String(), bad.stdout.String()} {
		for _, secret := range secretLines(t, password, s.cert, stranger) {
			if strings.Contains(out, secret) {
				t.Errorf("zkcurator printed secret material %q:\n%s", secret, out)
			}
		}
	}
	if !strings.Contains(ok.stderr.String(), "zk: ") {
		t.Errorf("the --verbose run logged nothing of go-zookeeper's:\n%s", ok.stderr.String())
	}
}

// secretLines returns the password, PEM headers of keys and certificates,
// and every base64 line of the certificates' and keys' files.
func secretLines(t *testing.T, password string, certs ...*zktest.Cert) []string {
	out := []string{password, "PRIVATE KEY", "BEGIN CERTIFICATE"}
	for _, c := range certs {
		lines, err := c.PEMLines()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, lines...)
	}
	return out
}
