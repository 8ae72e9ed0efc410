package framework

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework/internal/gozk"
	"github.com/zkcurator/zkcurator/framework/internal/sasl"
)

// opSASL is ZooKeeper's sasl request (ZooDefs.OpCode.sasl): its body is a
// GetSASLRequest and its reply a SetSASLResponse, each one jute buffer,
// the token. The Java client sends it with an ordinary xid; the server
// echoes any.
const opSASL int32 = 102

// maxSASLRounds bounds the tokens one exchange sends; DIGEST-MD5 takes
// two.
const maxSASLRounds = 8

// saslAuth is the client's WithSASL: what each connection's exchange runs,
// and the failure that ends the client's attempts.
type saslAuth struct {
	cfg SASL

	once   sync.Once
	err    error         // set once, before failed is closed
	failed chan struct{} // closed when authentication failed for good
}

func (a *saslAuth) init() { a.failed = make(chan struct{}) }

// failure returns the error that ended authentication, or nil; nil-safe.
func (a *saslAuth) failure() error {
	if a == nil {
		return nil
	}
	select {
	case <-a.failed:
		return a.err
	default:
		return nil
	}
}

// failedCh is closed when authentication failed for good; nil (never
// ready) without WithSASL.
func (a *saslAuth) failedCh() <-chan struct{} {
	if a == nil {
		return nil
	}
	return a.failed
}

// authenticateSASL runs the client's SASL exchange on l, a new connection
// of gate g, when WithSASL is set. A refusal or a failed proof ends the
// client's attempts (g dials no more) and is reported; a lost connection
// or ctx's end is returned only, and the next connection tries again.
func (k *core) authenticateSASL(ctx context.Context, g *gozk.Gate, l *gozk.Link) error {
	a := k.cfg.sasl
	if a == nil {
		return nil
	}
	if err := a.failure(); err != nil {
		return err
	}
	var refused bool
	m, err := a.cfg.mechanism(ctx, l.Addr())
	switch {
	case err == nil:
		refused, err = saslExchange(ctx, l, m)
	case ctx.Err() != nil:
		return err
	case errors.Is(err, sasl.ErrKDCUnreachable):
		// Not the credentials' fault: the next connection tries again.
		k.log.Warn("SASL authentication could not complete; the next connection tries again",
			zap.String("mechanism", a.cfg.mech), zap.Error(err))
		return err
	default: // a credential the KDC or the files refuse
		refused = true
	}
	if err == nil {
		k.log.Debug("SASL authenticated", zap.String("mechanism", a.cfg.mech), zap.String("user", a.cfg.user))
		return nil
	}
	if !refused {
		return err
	}
	err = fmt.Errorf("%w: %s as %s: %w", ErrSASLAuthFailed, a.cfg.mech, quotedIdentity(a.cfg), err)
	a.once.Do(func() {
		a.err = err
		g.Retire() // no connection of this client tries the credentials again
		close(a.failed)
		k.log.Error("SASL authentication failed; the client will not connect", zap.Error(err))
		k.reportError(err)
	})
	return err
}

// saslExchange sends m's tokens on l until m is done. refused reports an
// error that is the server's refusal or a token m cannot accept; any other
// error is the connection's or ctx's.
func saslExchange(ctx context.Context, l *gozk.Link, m sasl.Mechanism) (refused bool, err error) {
	tok, err := m.Start()
	if err != nil {
		return true, err
	}
	for range maxSASLRounds {
		r, err := l.Do(ctx, opSASL, juteBuffer(tok))
		switch {
		case errors.Is(err, zk.ErrAuthFailed):
			return true, fmt.Errorf("the server refused the credentials (%s): %w", refusedWhy(m), err)
		case errors.Is(err, gozk.ErrSASLRequired):
			return true, fmt.Errorf("the server refused the credentials (%s) and requires SASL: %w: %w", refusedWhy(m), zk.ErrAuthFailed, err)
		case err != nil:
			return false, err
		}
		challenge, ok := readJuteBuffer(r.Body)
		if !ok {
			return true, fmt.Errorf("a malformed SetSASLResponse: %w", sasl.ErrChallenge)
		}
		if tok, err = m.Step(challenge); err != nil {
			return true, err
		}
		if m.Done() {
			return false, nil
		}
	}
	return true, fmt.Errorf("more than %d rounds: %w", maxSASLRounds, sasl.ErrChallenge)
}

// refusedWhy names the causes of a server's refusal of m's credentials.
func refusedWhy(m sasl.Mechanism) string {
	if m.Name() == sasl.GSSAPIName {
		return "a ticket the server cannot read: not for its principal, or its clock is off"
	}
	return "unknown user or wrong password"
}

// quotedIdentity names who authenticated in an error: user "alice" or
// principal "a@R".
func quotedIdentity(s SASL) string {
	if s.mech == sasl.GSSAPIName {
		if s.user == "" {
			return "the principal of " + strconv.Quote(s.krb.ccache)
		}
		return "principal " + strconv.Quote(s.user)
	}
	return "user " + strconv.Quote(s.user)
}

// juteBuffer encodes b as a jute buffer: its length, then its bytes.
func juteBuffer(b []byte) []byte {
	out := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(b)), uint32(len(b)))
	return append(out, b...)
}

// readJuteBuffer decodes a jute buffer (length -1: null, read as empty).
func readJuteBuffer(b []byte) ([]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 {
		return []byte{}, true
	}
	if int(n) > len(b)-4 {
		return nil, false
	}
	return b[4 : 4+n], true
}
