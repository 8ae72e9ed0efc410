package framework

import (
	"errors"
	"strings"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"
)

// authOrReadyLocked applies the WithAuth entries this connection has not accepted yet
// before operations may use it; go-zookeeper re-sends accepted ones on reconnect.
func (k *core) authOrReadyLocked() {
	s := &k.sess
	if s.rewatching || !s.sentinel {
		return // sessionUpLocked comes back here (rewatch.go)
	}
	if s.authApplied < len(k.cfg.auth) {
		if !s.authRunning {
			s.authRunning = true
			conn, gen, from := s.conn, s.gen, s.authApplied
			k.spawnLocked(func() { k.applyAuth(conn, gen, from) })
		}
		return
	}
	k.readyLocked()
}

func (k *core) applyAuth(conn *zk.Conn, gen uint64, from int) {
	applied := from
	var err error
	for _, a := range k.cfg.auth[from:] {
		if err = conn.AddAuth(a.scheme, a.auth); err != nil {
			break
		}
		applied++
	}
	k.events.push(loopEvent{kind: evAuthDone, gen: gen, applied: applied, err: err})
}

func (k *core) authDoneLocked(ev loopEvent) {
	s := &k.sess
	s.authRunning = false
	s.authApplied = ev.applied
	if ev.err != nil && !isConnectionError(ev.err) {
		a := k.cfg.auth[ev.applied]
		k.log.Error("authentication rejected; continuing without it",
			zap.String("scheme", a.scheme), zap.Error(ev.err))
		s.authApplied++
	}
	if s.hasSession {
		k.authOrReadyLocked()
	}
}

func isConnectionError(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrClosing) ||
		errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrSessionExpired)
}

// checkAuthScheme refuses schemes WithAuth cannot send: an empty one, SASL
// (go-zookeeper v1.0.4 has no SASL handshake) and x509 (the identity comes
// from the TLS client certificate, WithTLS).
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
