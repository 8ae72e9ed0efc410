package framework

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
)

// ErrTLSHandshake reports a connection whose TLS handshake failed. The error
// is a *TLSError that names the server and the cause; go-zookeeper counts it
// as a failed connection attempt and tries again, and operations waiting for
// a connection end with ErrNotConnected at the connection timeout.
var ErrTLSHandshake = errors.New("framework: TLS handshake failed")

// maxTLSHandshake bounds a TLS handshake; go-zookeeper's own dial timeout
// (one second) is too short for a JVM's first handshake on a busy machine.
const maxTLSHandshake = 10 * time.Second

// TLSError is a failed TLS handshake with one server: Cause says in a few
// words what failed ("unknown authority", "name mismatch", "client
// certificate required", ...). It matches ErrTLSHandshake and, with
// errors.As, the underlying crypto/tls or crypto/x509 error. It never holds
// key or certificate content.
type TLSError struct {
	Addr  string
	Cause string
	Err   error
}

func (e *TLSError) Error() string {
	return fmt.Sprintf("framework: TLS handshake with %s failed: %s: %v", e.Addr, e.Cause, e.Err)
}

func (e *TLSError) Unwrap() []error { return []error{ErrTLSHandshake, e.Err} }

// WithTLS makes the client speak TLS to ZooKeeper's secure client port, on
// top of the dialer (WithDialer's, or a plain TCP dial). cfg is used as
// given: the server's certificate is verified against cfg.RootCAs (the
// system's roots when nil) unless cfg.InsecureSkipVerify is set; a client
// certificate (cfg.Certificates or cfg.GetClientCertificate) gives mutual
// TLS and ZooKeeper's x509 identity. When cfg.ServerName is empty, each
// connection checks the name of the host it dials, as written in the
// connect string (not the address it resolved to). Certificates are reloaded without a restart by setting
// cfg.GetClientCertificate (and, for the CA, cfg.VerifyConnection) to
// callbacks that return the current ones: each new connection calls them
// (docs/security.md shows how).
func WithTLS(cfg *tls.Config) Option {
	return func(c *config) {
		c.tls = cfg
		c.tlsSet = true
	}
}

// DialTLS wraps dial so that each connection runs a TLS handshake with cfg
// before go-zookeeper uses it, as WithTLS does; a failed handshake returns a
// *TLSError. It is for callers that wrap the dialer themselves (to record
// why connections fail, say); others use WithTLS.
func DialTLS(dial zk.Dialer, cfg *tls.Config) zk.Dialer {
	return newTLSDialer(dial, cfg, maxTLSHandshake, nil).dial
}

// tlsDialer runs TLS over its base dialer and reports each server's failure
// once until the server's cause changes or a handshake succeeds.
type tlsDialer struct {
	base    zk.Dialer
	cfg     *tls.Config
	timeout time.Duration
	log     *zap.Logger // nil: do not log
	report  func(error) // with log: where each logged failure is also reported

	mu       sync.Mutex
	reported map[string]string // server address -> cause last logged
}

func newTLSDialer(base zk.Dialer, cfg *tls.Config, timeout time.Duration, log *zap.Logger) *tlsDialer {
	if base == nil {
		base = net.DialTimeout
	}
	return &tlsDialer{base: base, cfg: cfg, timeout: timeout, log: log, reported: make(map[string]string)}
}

func (d *tlsDialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	raw, err := d.base(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return d.handshake(context.Background(), raw, addr, host, timeout)
}

// handshake runs TLS over raw, checking the server's certificate against
// host unless the config names a server; it ends when ctx does, and after
// the longer of timeout and the dialer's own bound.
func (d *tlsDialer) handshake(ctx context.Context, raw net.Conn, addr, host string, timeout time.Duration) (net.Conn, error) {
	cfg := d.cfg.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	conn := tls.Client(raw, cfg)
	_ = raw.SetDeadline(time.Now().Add(max(timeout, d.timeout)))
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, d.failed(addr, cfg.ServerName, err)
	}
	_ = raw.SetDeadline(time.Time{})
	d.succeeded(addr)
	return &tlsConn{Conn: conn, d: d, addr: addr, name: cfg.ServerName}, nil
}

// failed classifies a handshake error, logs it once per server and cause,
// and returns it as a *TLSError.
func (d *tlsDialer) failed(addr, name string, err error) error {
	te := &TLSError{Addr: addr, Cause: tlsCause(err, name, d.hasClientCert()), Err: err}
	if d.log == nil {
		return te
	}
	d.mu.Lock()
	fresh := d.reported[addr] != te.Cause
	d.reported[addr] = te.Cause
	d.mu.Unlock()
	if fresh {
		d.log.Error("TLS connection to ZooKeeper failed; retrying",
			zap.String("server", addr), zap.String("cause", te.Cause), zap.Error(err))
		if d.report != nil {
			d.report(te)
		}
	} else {
		d.log.Debug("TLS connection to ZooKeeper failed again",
			zap.String("server", addr), zap.String("cause", te.Cause))
	}
	return te
}

func (d *tlsDialer) succeeded(addr string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.reported, addr)
}

// tlsConn reports a failure of the first read as a handshake failure: with
// TLS 1.3 a server refuses a client certificate only after the client has
// finished its side of the handshake.
type tlsConn struct {
	*tls.Conn
	d          *tlsDialer
	addr, name string
	once       sync.Once
}

func (c *tlsConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 || err != nil {
		c.once.Do(func() {
			if n == 0 && isTLSAlert(err) {
				err = c.d.failed(c.addr, c.name, err)
			}
		})
	}
	return n, err
}

// hasClientCert reports whether the client has a certificate to present.
func (d *tlsDialer) hasClientCert() bool {
	return len(d.cfg.Certificates) > 0 || d.cfg.GetClientCertificate != nil
}

// tlsCause names in a few words what made a handshake fail.
func tlsCause(err error, name string, hasCert bool) string {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var recordHeader tls.RecordHeaderError
	msg := err.Error()
	switch {
	case errors.As(err, &unknown):
		return "server certificate signed by unknown authority"
	case errors.As(err, &host):
		return fmt.Sprintf("server certificate name mismatch (want %q)", name)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "server certificate expired or not yet valid"
	case errors.As(err, &invalid):
		return "server certificate invalid"
	case errors.As(err, &recordHeader):
		return "server does not speak TLS (is this the plaintext client port?)"
	case !hasCert && strings.Contains(msg, "remote error: tls:"):
		return "client certificate required (none given)"
	case strings.Contains(msg, "certificate required"):
		return "client certificate required"
	case strings.Contains(msg, "remote error: tls: bad certificate"),
		strings.Contains(msg, "remote error: tls: unknown certificate"), // also "... authority"
		strings.Contains(msg, "remote error: tls: expired certificate"),
		strings.Contains(msg, "remote error: tls: revoked certificate"),
		strings.Contains(msg, "remote error: tls: unsupported certificate"):
		return "client certificate refused by the server (expired, or signed by a CA it does not trust)"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "no TLS answer in time (is this ZooKeeper's secure client port?)"
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), strings.Contains(msg, "connection reset"):
		return "server closed the connection during the handshake (is this the plaintext client port? does it require a client certificate?)"
	case strings.Contains(msg, "remote error"):
		return "server refused the handshake"
	}
	return "handshake error"
}

// isTLSAlert reports whether err is an alert the server sent.
func isTLSAlert(err error) bool {
	return err != nil && strings.Contains(err.Error(), "remote error: tls:")
}
