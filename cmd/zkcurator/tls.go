package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/zkcurator/zkcurator/framework"
)

// Environment defaults of the TLS flags.
const (
	envTLSCA   = "ZK_TLS_CA"
	envTLSCert = "ZK_TLS_CERT"
	envTLSKey  = "ZK_TLS_KEY"
)

// securityFlags are the TLS and ACL flags every subcommand takes.
type securityFlags struct {
	ca, cert, key, serverName string
	acl                       string

	// Filled by check.
	tls         *tls.Config // nil: plaintext
	aclProvider framework.ACLProvider
}

// addSecurityFlags registers the TLS and ACL flags on fs.
func addSecurityFlags(fs *flag.FlagSet, s *securityFlags) {
	fs.StringVar(&s.ca, "tls-ca", os.Getenv(envTLSCA), "speak TLS to ZooKeeper's secure client port, trusting the CA certificates in PEM `FILE` (default $"+envTLSCA+")")
	fs.StringVar(&s.cert, "tls-cert", os.Getenv(envTLSCert), "present the client certificate in PEM `FILE` (mutual TLS; its subject is the x509 identity) (default $"+envTLSCert+")")
	fs.StringVar(&s.key, "tls-key", os.Getenv(envTLSKey), "the private key of --tls-cert, in PEM `FILE` (default $"+envTLSKey+")")
	fs.StringVar(&s.serverName, "tls-server-name", "", "check the server certificate for `NAME` instead of the host of --connect")
	fs.StringVar(&s.acl, "acl", "open", "ACL of the nodes zkcurator creates: open (anyone), creator (only the identities of --auth, --sasl-user and --tls-cert) or x509 (only the subject of --tls-cert)")
}

// check loads the certificates and chooses the ACL provider, naming the flag
// and file of anything wrong and never their contents. It does no network
// I/O. hasAuth tells whether --auth, --auth-file, ZK_AUTH or --sasl-user gave
// an identity.
func (s *securityFlags) check(hasAuth bool) error {
	if err := s.loadTLS(); err != nil {
		return err
	}
	switch s.acl {
	case "open":
		s.aclProvider = framework.OpenACLProvider()
	case "creator":
		if !hasAuth && s.cert == "" {
			return errors.New("--acl creator needs an identity: --auth digest:user:password (or --auth-file, ZK_AUTH), --sasl-user or --tls-cert")
		}
		s.aclProvider = framework.CreatorAllACLProvider()
	case "x509":
		if s.tls == nil || len(s.tls.Certificates) == 0 {
			return errors.New("--acl x509 needs a client certificate: --tls-ca, --tls-cert and --tls-key")
		}
		s.aclProvider = framework.X509ACLProvider(framework.X509Subject(s.tls.Certificates[0].Leaf))
	default:
		return fmt.Errorf("bad --acl %q: want open, creator or x509", s.acl)
	}
	return nil
}

func (s *securityFlags) loadTLS() error {
	if s.ca == "" {
		if s.cert != "" || s.key != "" || s.serverName != "" {
			return errors.New("--tls-cert, --tls-key and --tls-server-name need --tls-ca (or ZK_TLS_CA): the CA that signed ZooKeeper's certificate")
		}
		return nil
	}
	pem, err := os.ReadFile(s.ca)
	if err != nil {
		return fmt.Errorf("read --tls-ca: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("bad --tls-ca %s: no PEM certificate in it", s.ca)
	}
	cfg := &tls.Config{RootCAs: pool, ServerName: s.serverName, MinVersion: tls.VersionTLS12}
	switch {
	case s.cert == "" && s.key == "":
	case s.cert == "":
		return errors.New("--tls-key needs --tls-cert (or ZK_TLS_CERT)")
	case s.key == "":
		return errors.New("--tls-cert needs --tls-key (or ZK_TLS_KEY)")
	default:
		pair, err := tls.LoadX509KeyPair(s.cert, s.key)
		if err != nil {
			return fmt.Errorf("bad --tls-cert %s or --tls-key %s: %v", s.cert, s.key, err)
		}
		if pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return fmt.Errorf("bad --tls-cert %s: %v", s.cert, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	s.tls = cfg
	return nil
}
