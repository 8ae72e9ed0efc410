package framework

import (
	"errors"
	"strings"

	"github.com/go-zookeeper/zk"
)

// applyAuth sends the WithAuth entries from index from on conn of
// generation gen, reporting to readiness.authDone how many it accepted;
// go-zookeeper re-sends accepted ones on reconnect.
func (k *core) applyAuth(conn *zk.Conn, gen uint64, from int) {
	applied := from
	var err error
	for _, a := range k.cfg.auth[from:] {
		if err = conn.AddAuth(a.scheme, a.auth); err != nil {
			break
		}
		applied++
	}
	k.events.Push(loopEvent{kind: evAuthDone, gen: gen, applied: applied, err: err})
}

// isConnectionError reports whether err is a connection's end rather than
// the server's answer.
func isConnectionError(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrClosing) ||
		errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrSessionExpired)
}

// checkAuthScheme refuses schemes WithAuth cannot send: an empty one, SASL
// (an exchange of its own, WithSASL) and x509 (the identity comes from the
// TLS client certificate, WithTLS).
func checkAuthScheme(scheme string) error {
	switch strings.ToLower(scheme) {
	case "":
		return invalidArg("auth scheme is empty")
	case "sasl", "kerberos", "gssapi":
		return invalidArg("auth scheme %q: %w", scheme, ErrSASLUnsupported)
	case "x509":
		return invalidArg("auth scheme %q: the x509 identity is the TLS client certificate's subject; use WithTLS with a client certificate", scheme)
	}
	return nil
}
