package zktest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tlsWarmUps bounds the handshakes a server started WithTLS is given before
// a test's: a fresh JVM serves its first ones slowly (its TLS stack loads
// and compiles: 6.7 s, then 2.2 s, then 0.3 s, measured on a loaded 2-core
// machine), which a test would count against its connection timeout.
const tlsWarmUps = 4

// warmTLS shakes hands with a server started WithTLS until a handshake
// takes under a second, at most tlsWarmUps times, within ctx.
func (s *Server) warmTLS(ctx context.Context) {
	t := s.inst.cfg.tls
	if t == nil {
		return
	}
	cert, err := t.ca.Client("zktest-warm-up")
	if err != nil {
		return
	}
	d := tls.Dialer{Config: t.ca.ClientConfig(cert)}
	for range tlsWarmUps {
		began := time.Now()
		c, err := d.DialContext(ctx, "tcp", s.SecureAddr())
		if err != nil {
			return
		}
		c.Close()
		if time.Since(began) < time.Second {
			return
		}
	}
}

// ClientAuth is whether a TLS-enabled server asks its clients for a
// certificate (ZooKeeper's ssl.clientAuth).
type ClientAuth string

// The client authentication modes of ZooKeeper's secure client port.
const (
	ClientAuthNone ClientAuth = "none" // no client certificate is asked for
	ClientAuthWant ClientAuth = "want" // one is asked for and checked if given
	ClientAuthNeed ClientAuth = "need" // a connection without a valid one is refused
)

// serverTLS is what WithTLS recorded.
type serverTLS struct {
	ca   *CA
	auth ClientAuth
}

// WithTLS opens a secure client port on every server, served by ZooKeeper's
// Netty connection factory with a certificate for 127.0.0.1 signed by ca,
// trusting clients whose certificates ca signed, and with ZooKeeper's x509
// authentication provider, so that a client certificate's subject ("CN=...")
// is the client's x509 identity. The plaintext client port stays open
// beside it (Addr); clients of the secure port use SecureAddr.
func WithTLS(ca *CA, auth ClientAuth) ServerOption {
	return func(c *serverConfig) { c.tls = &serverTLS{ca: ca, auth: auth} }
}

func (t *serverTLS) validate() error {
	if t == nil {
		return nil
	}
	if t.ca == nil {
		return fmt.Errorf("zktest: WithTLS: the CA is nil")
	}
	switch t.auth {
	case ClientAuthNone, ClientAuthWant, ClientAuthNeed:
		return nil
	}
	return fmt.Errorf("zktest: WithTLS: client auth %q: want none, want or need", t.auth)
}

// SecureAddr is the server's secure client address, "127.0.0.1:port", or ""
// when it was not started WithTLS. It does not change across Stop and Restart.
func (s *Server) SecureAddr() string {
	if s.inst.ports.secure == 0 {
		return ""
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.inst.ports.secure))
}

// SecureConnectString lists every member's secure client address, separated
// by commas, or "" when the cluster was not started WithTLS.
func (c *Cluster) SecureConnectString() string {
	addrs := make([]string, 0, len(c.members))
	for _, m := range c.members {
		if a := m.SecureAddr(); a != "" {
			addrs = append(addrs, a)
		}
	}
	return strings.Join(addrs, ",")
}

// prepareTLSLocked gives a server started WithTLS its secure port (once per
// set of ports: a start on fresh ports picks a fresh one) and its key store.
func (s *Server) prepareTLSLocked() error {
	t := s.inst.cfg.tls
	if t == nil {
		return nil
	}
	if s.inst.ports.secure == 0 {
		p, err := pickPorts(1)
		if err != nil {
			return err
		}
		s.inst.ports.secure = p[0]
	}
	if s.inst.keyStore != "" {
		return nil
	}
	cert, err := t.ca.Server("zookeeper-" + filepath.Base(s.dir))
	if err != nil {
		return err
	}
	s.inst.keyStore = cert.KeyStoreFile
	return nil
}

// tlsLines renders the zoo.cfg lines of the secure client port.
func (in instance) tlsLines(line func(k string, v any)) {
	t := in.cfg.tls
	if t == nil {
		return
	}
	line("secureClientPort", in.ports.secure)
	line("secureClientPortAddress", "127.0.0.1")
	line("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory")
	line("ssl.keyStore.location", in.keyStore)
	line("ssl.keyStore.type", "PEM")
	line("ssl.trustStore.location", t.ca.CertFile)
	line("ssl.trustStore.type", "PEM")
	line("ssl.clientAuth", string(t.auth))
	line("authProvider.x509", "org.apache.zookeeper.server.auth.X509AuthenticationProvider")
}

// nettyTLSJars are the Netty jars ZooKeeper's secure port needs that Debian's
// zookeeper.jar manifest leaves out.
var nettyTLSJars = []string{"/usr/share/java/netty-codec.jar", "/usr/share/java/netty-resolver.jar"}

// tlsClassPath adds the Netty jars a secure port needs to cp, those of them
// that are installed, for a server started WithTLS.
func (in instance) tlsClassPath(cp string) string {
	if in.cfg.tls == nil {
		return cp
	}
	for _, jar := range nettyTLSJars {
		if _, err := os.Stat(jar); err == nil && !strings.Contains(cp, jar) {
			cp += string(os.PathListSeparator) + jar
		}
	}
	return cp
}
