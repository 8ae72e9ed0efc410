package framework

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/zkcurator/zkcurator/framework/internal/sasl"
)

// ZooKeeper's defaults for DIGEST-MD5, which the Java client's system
// properties zookeeper.sasl.client.username and zookeeper.server.realm
// override (SASLService and SASLServerRealm here).
const (
	DefaultSASLService = "zookeeper"   // the protocol in the digest-uri
	DefaultSASLRealm   = "zk-sasl-md5" // the server name and default realm
)

// ErrSASLAuthFailed matches the error of a SASL authentication the server
// refused (an unknown user or a wrong password: the server tells them
// apart to no client) or that could not complete (a server that cannot
// prove it knows the password). It is returned by BlockUntilConnected and
// by every operation until Close, and reported to ListenErrors; the client
// does not try the credentials again.
var ErrSASLAuthFailed = errors.New("framework: SASL authentication failed")

// SASL is how WithSASL authenticates: SASLDigest or SASLKerberos; its
// String never shows the password.
type SASL struct {
	mech     string
	user     string // DIGEST-MD5's user, or the Kerberos principal
	password string
	service  string
	realm    string
	krb      kerberosFiles // GSSAPI's
}

// SASLOption adjusts a SASL mechanism.
type SASLOption func(*SASL)

// SASLService sets the service (protocol) the server is known by, the Java
// client's zookeeper.sasl.client.username; default "zookeeper". With
// SASLKerberos it is the first part of the server's principal
// service/host@REALM.
func SASLService(name string) SASLOption { return func(s *SASL) { s.service = name } }

// SASLServerRealm sets the server name and default realm, the Java
// client's zookeeper.server.realm; default "zk-sasl-md5".
func SASLServerRealm(realm string) SASLOption { return func(s *SASL) { s.realm = realm } }

// SASLDigest authenticates as user with password by DIGEST-MD5, the
// mechanism of a JAAS Server section with ZooKeeper's DigestLoginModule;
// the identity the sasl ACL scheme matches is user.
func SASLDigest(user, password string, opts ...SASLOption) SASL {
	s := SASL{mech: sasl.DigestMD5Name, user: user, password: password,
		service: DefaultSASLService, realm: DefaultSASLRealm}
	for _, o := range opts {
		o(&s)
	}
	return s
}

// String names the mechanism and user, never the password.
func (s SASL) String() string {
	if s.mech == "" {
		return "SASL(none)"
	}
	return "SASL(" + s.mech + ", " + s.identity() + ")"
}

// identity names who authenticates: "user alice" or "principal a@R".
func (s SASL) identity() string {
	if s.mech == sasl.GSSAPIName {
		if s.user == "" {
			return "the principal of " + s.krb.ccache
		}
		return "principal " + s.user
	}
	return "user " + s.user
}

// GoString is String, so that %#v does not print the password either.
func (s SASL) GoString() string { return s.String() }

// WithSASL authenticates every new connection of the client (the first,
// each reconnect and each new session) by SASL before any other request
// goes out on it, as the Java client does with a JAAS Client section. The
// server must run ZooKeeper's SASLAuthenticationProvider.
func WithSASL(s SASL) Option {
	return func(c *config) { c.sasl = &saslAuth{cfg: s} }
}

// validate refuses a mechanism that cannot be sent, naming the field.
func (s SASL) validate() error {
	if s.mech == sasl.GSSAPIName {
		return s.validateKerberos()
	}
	switch {
	case s.mech == "":
		return invalidArg("SASL mechanism is unset; use SASLDigest or SASLKerberos")
	case s.user == "":
		return invalidArg("SASL user is empty")
	case !utf8.ValidString(s.user) || !utf8.ValidString(s.password):
		return invalidArg("SASL user %q or its password is not valid UTF-8", s.user)
	case s.service == "":
		return invalidArg("SASL service is empty")
	case s.realm == "":
		return invalidArg("SASL server realm is empty")
	}
	return nil
}

// mechanism returns a new client of the mechanism, for one exchange on a
// connection to addr; GSSAPI's obtains its service ticket first.
func (s SASL) mechanism(ctx context.Context, addr string) (sasl.Mechanism, error) {
	if s.mech == sasl.GSSAPIName {
		return s.kerberosMechanism(ctx, addr)
	}
	return sasl.NewDigest(s.user, s.password, s.service, s.realm, s.realm), nil
}
