package framework

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/zkcurator/zkcurator/framework/internal/sasl"
)

// kerberosFiles are where SASLKerberos reads its credentials and
// configuration from.
type kerberosFiles struct {
	keytab   string
	ccache   string
	krb5conf string
}

// SASLKeytab makes SASLKerberos log in with the principal's key in the
// keytab file at path, as a JAAS Client section with useKeyTab=true does;
// without it, SASLKerberos uses a credentials cache.
func SASLKeytab(path string) SASLOption { return func(s *SASL) { s.krb.keytab = path } }

// SASLCredentialsCache sets the credentials cache (a FILE: cache, as kinit
// writes) SASLKerberos reads when no keytab is given; default $KRB5CCNAME,
// else /tmp/krb5cc_<uid>.
func SASLCredentialsCache(path string) SASLOption { return func(s *SASL) { s.krb.ccache = path } }

// SASLKrb5Config sets the krb5.conf file that names the realms, their KDCs
// and the default realm; default the first file of $KRB5_CONFIG, else
// /etc/krb5.conf.
func SASLKrb5Config(path string) SASLOption { return func(s *SASL) { s.krb.krb5conf = path } }

// SASLKerberos authenticates as principal (name or name@REALM; without a
// realm, krb5.conf's default realm) by GSSAPI, the mechanism of a JAAS
// Server section with Krb5LoginModule. Each connection obtains a ticket for
// the server principal service/host@REALM: service is SASLService's
// ("zookeeper"), host the host name of the server address connected to (an
// address given as an IP is looked up, as the Java client does), and REALM
// the realm krb5.conf maps host to. The security layer chosen is none, as
// ZooKeeper's. The identity the sasl ACL scheme matches is name@REALM
// (ZooKeeper's default; its kerberos.removeRealmFromPrincipal and
// kerberos.removeHostFromPrincipal shorten it). An empty principal with no
// keytab means the credentials cache's principal.
func SASLKerberos(principal string, opts ...SASLOption) SASL {
	s := SASL{mech: sasl.GSSAPIName, user: principal, service: DefaultSASLService,
		krb: kerberosFiles{ccache: defaultCCache(), krb5conf: defaultKrb5Config()}}
	for _, o := range opts {
		o(&s)
	}
	return s
}

func defaultCCache() string {
	if v := os.Getenv("KRB5CCNAME"); v != "" {
		return v
	}
	return "/tmp/krb5cc_" + strconv.Itoa(os.Getuid())
}

func defaultKrb5Config() string {
	if v := os.Getenv("KRB5_CONFIG"); v != "" {
		return strings.Split(v, ":")[0]
	}
	return "/etc/krb5.conf"
}

// validateKerberos refuses a SASLKerberos that cannot work, naming the
// field; it does not read the files.
func (s SASL) validateKerberos() error {
	switch {
	case s.service == "":
		return invalidArg("SASL service is empty")
	case s.krb.krb5conf == "":
		return invalidArg("SASL Kerberos krb5.conf path is empty")
	case s.krb.keytab != "" && s.user == "":
		return invalidArg("SASL Kerberos principal is empty; a keytab needs one")
	case strings.ContainsAny(s.user, "\x00\n") || strings.Count(s.user, "@") > 1:
		return invalidArg("SASL Kerberos principal %q is not name or name@REALM", s.user)
	case s.krb.keytab == "" && s.krb.ccache == "":
		return invalidArg("SASL Kerberos has neither a keytab nor a credentials cache")
	case s.krb.keytab == "" && strings.Contains(s.krb.ccache, ":") && !strings.HasPrefix(s.krb.ccache, "FILE:"):
		return invalidArg("SASL Kerberos credentials cache %q is not a FILE: cache", s.krb.ccache)
	}
	return nil
}

// kerberosMechanism obtains a service ticket for the server at addr.
func (s SASL) kerberosMechanism(ctx context.Context, addr string) (sasl.Mechanism, error) {
	k := sasl.Kerberos{Principal: s.user, Keytab: s.krb.keytab, CCache: s.krb.ccache, Config: s.krb.krb5conf}
	return k.NewGSSAPI(ctx, s.service, serverHost(ctx, addr))
}

// serverHost is the host of the server principal for a connection to addr,
// as the Java client takes it: the host name the address names, and for an
// IP address the name a reverse lookup gives (the address itself when none
// does); lower case.
func serverHost(ctx context.Context, addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if net.ParseIP(host) != nil {
		if names, err := net.DefaultResolver.LookupAddr(ctx, host); err == nil && len(names) > 0 {
			host = names[0]
		}
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// The causes of a SASLKerberos failure, each also matching
// ErrSASLAuthFailed when it ended the client's attempts. A KDC that does
// not answer is none of them: the next connection tries again.
var (
	// ErrKerberosConfig: krb5.conf cannot be read, or names no realm for
	// the principal.
	ErrKerberosConfig = sasl.ErrKerberosConfig
	// ErrKerberosKeytab: the keytab is missing, unreadable, malformed or
	// holds no key of the principal.
	ErrKerberosKeytab = sasl.ErrKeytab
	// ErrKerberosKeyRejected: the KDC did not accept the keytab's key (an
	// older key version).
	ErrKerberosKeyRejected = sasl.ErrKeyRejected
	// ErrKerberosPrincipalUnknown: the KDC does not know the principal.
	ErrKerberosPrincipalUnknown = sasl.ErrPrincipalUnknown
	// ErrKerberosServiceUnknown: the KDC does not know the server principal
	// service/host.
	ErrKerberosServiceUnknown = sasl.ErrServiceUnknown
	// ErrKerberosClockSkew: the clock is further from the KDC's than
	// krb5.conf's clockskew (default 5 minutes).
	ErrKerberosClockSkew = sasl.ErrClockSkew
	// ErrKerberosNoTicket: the credentials cache is missing, empty, another
	// principal's, or its ticket-granting ticket expired.
	ErrKerberosNoTicket = sasl.ErrNoTicket
)
