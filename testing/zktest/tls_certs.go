package zktest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// certLifetime is how long a certificate made for a test run is valid.
const certLifetime = 24 * time.Hour

// CA is a certificate authority made for one test run: it signs the
// certificates of TLS-enabled servers and of their clients. Its files live in
// the directory given to NewCA. A CA is safe for concurrent use.
type CA struct {
	dir    string
	cert   *x509.Certificate
	key    crypto.Signer
	serial atomic.Int64
	// CertFile is the CA certificate in PEM, the trust store of servers and
	// clients (zkcurator's --tls-ca).
	CertFile string
}

// Cert is a certificate signed by a CA with its private key, as PEM files
// and as a tls.Certificate.
type Cert struct {
	// CertFile and KeyFile hold the certificate and its unencrypted PKCS #8
	// key in PEM (zkcurator's --tls-cert and --tls-key).
	CertFile, KeyFile string
	// KeyStoreFile holds the key and then the certificate in PEM: a Java
	// ZooKeeper server's or client's key store with type PEM.
	KeyStoreFile string
	// Subject is the certificate's subject as ZooKeeper's x509 scheme names
	// it ("CN=alice"), the id of an x509 ACL.
	Subject string
	TLS     tls.Certificate
}

// NewCA creates a CA whose certificate is named name and writes its files in
// dir (a t.TempDir()).
func NewCA(dir, name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("zktest: CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("zktest: CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("zktest: CA certificate: %w", err)
	}
	ca := &CA{dir: dir, cert: cert, key: key, CertFile: filepath.Join(dir, safeName(name)+"-ca.pem")}
	ca.serial.Store(1)
	if err := writePEM(ca.CertFile, "CERTIFICATE", der); err != nil {
		return nil, err
	}
	return ca, nil
}

// StartCA creates a CA in a directory of the test that is removed when the
// test ends. A CA that cannot be made fails the test.
func StartCA(tb testing.TB, name string) *CA {
	tb.Helper()
	ca, err := NewCA(tb.TempDir(), name)
	if err != nil {
		tb.Fatal(err)
	}
	return ca
}

// Pool returns a pool holding only this CA, for tls.Config's RootCAs.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// Client issues a client certificate with common name cn, valid from an hour
// ago for a day.
func (ca *CA) Client(cn string) (*Cert, error) {
	now := time.Now()
	return ca.issue(cn, now.Add(-time.Hour), now.Add(certLifetime), false)
}

// ExpiredClient issues a client certificate with common name cn that expired
// an hour ago.
func (ca *CA) ExpiredClient(cn string) (*Cert, error) {
	now := time.Now()
	return ca.issue(cn, now.Add(-48*time.Hour), now.Add(-time.Hour), false)
}

// Server issues a server certificate for 127.0.0.1 and localhost.
func (ca *CA) Server(cn string) (*Cert, error) {
	now := time.Now()
	return ca.issue(cn, now.Add(-time.Hour), now.Add(certLifetime), true)
}

// ClientConfig returns a tls.Config that trusts only this CA and presents
// cert (none when cert is nil).
func (ca *CA) ClientConfig(cert *Cert) *tls.Config {
	cfg := &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{cert.TLS}
	}
	return cfg
}

func (ca *CA) issue(cn string, notBefore, notAfter time.Time, server bool) (*Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("zktest: key for %q: %w", cn, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial.Add(1)),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		// ZooKeeper's servers also dial each other, so a server's certificate
		// serves both ends, as ZooKeeper's own test certificates do.
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		tmpl.DNSNames = []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, fmt.Errorf("zktest: certificate for %q: %w", cn, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("zktest: key for %q: %w", cn, err)
	}
	base := filepath.Join(ca.dir, fmt.Sprintf("%s-%d", safeName(cn), tmpl.SerialNumber.Int64()))
	c := &Cert{CertFile: base + ".crt", KeyFile: base + ".key", KeyStoreFile: base + "-keystore.pem", Subject: "CN=" + cn}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	for _, f := range []struct {
		path string
		data []byte
	}{{c.CertFile, certPEM}, {c.KeyFile, keyPEM}, {c.KeyStoreFile, append(keyPEM, certPEM...)}} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, fmt.Errorf("zktest: %w", err)
		}
	}
	if c.TLS, err = tls.LoadX509KeyPair(c.CertFile, c.KeyFile); err != nil {
		return nil, fmt.Errorf("zktest: certificate for %q: %w", cn, err)
	}
	return c, nil
}

// PEMLines returns the base64 lines of the certificate's and key's PEM
// files, for tests that check that no output shows key material. Lines
// shorter than 16 characters (a block's last) are left out: they would match
// unrelated text by chance.
func (c *Cert) PEMLines() ([]string, error) {
	var out []string
	for _, f := range []string{c.CertFile, c.KeyFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("zktest: %w", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
				out = append(out, line)
			}
		}
	}
	return out, nil
}

// writePEM writes one PEM block to a file only its owner may read.
func writePEM(path, kind string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	return nil
}

// safeName keeps letters, digits, '-' and '_' of a name for a file name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}
