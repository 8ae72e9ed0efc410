package sasl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
	"github.com/jcmturner/gokrb5/v8/krberror"
)

// The failures of obtaining a Kerberos service ticket. Each but
// ErrKDCUnreachable is one that trying again does not mend.
var (
	// ErrKerberosConfig reports a krb5.conf that cannot be read or used.
	ErrKerberosConfig = errors.New("the Kerberos configuration (krb5.conf) is unusable")
	// ErrKeytab reports a keytab that is missing, unreadable or holds no
	// key of the principal.
	ErrKeytab = errors.New("the Kerberos keytab is missing, unreadable or without the principal's key")
	// ErrKeyRejected reports a key the KDC did not accept: a keytab of an
	// older key version, or another principal's.
	ErrKeyRejected = errors.New("the Kerberos KDC did not accept the principal's key")
	// ErrPrincipalUnknown reports a client principal the KDC does not know.
	ErrPrincipalUnknown = errors.New("the Kerberos client principal is unknown to the KDC")
	// ErrServiceUnknown reports a service principal (service/host) the KDC
	// does not know.
	ErrServiceUnknown = errors.New("the Kerberos service principal is unknown to the KDC")
	// ErrClockSkew reports a clock too far from the KDC's.
	ErrClockSkew = errors.New("the clock skew between the client and the Kerberos KDC is too great")
	// ErrNoTicket reports a credentials cache that is missing, empty,
	// another principal's or whose ticket-granting ticket expired.
	ErrNoTicket = errors.New("no valid Kerberos ticket")
	// ErrKDCUnreachable reports that no KDC of the realm answered; the next
	// connection tries again.
	ErrKDCUnreachable = errors.New("no Kerberos KDC of the realm answered")
	// ErrKerberos reports any other failure of the KDC exchange.
	ErrKerberos = errors.New("the Kerberos exchange with the KDC failed")
)

// kdcCodes maps the KDC's error codes to the sentinels.
var kdcCodes = []struct {
	code int32
	err  error
}{
	{errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN, ErrPrincipalUnknown},
	{errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN, ErrServiceUnknown},
	{errorcode.KRB_AP_ERR_SKEW, ErrClockSkew},
	{errorcode.KDC_ERR_PREAUTH_FAILED, ErrKeyRejected},
	{errorcode.KRB_AP_ERR_BAD_INTEGRITY, ErrKeyRejected},
	{errorcode.KDC_ERR_CLIENT_REVOKED, ErrKeyRejected},
	{errorcode.KDC_ERR_KEY_EXPIRED, ErrKeyRejected},
	{errorcode.KRB_AP_ERR_TKT_EXPIRED, ErrNoTicket},
}

// classify wraps a gokrb5 error of doing what in the sentinel that names
// its cause. gokrb5 flattens the KDC's error into text, so the code is
// read from the text's code name; the text names principals and codes,
// never a key.
func classify(err error, what string) error {
	var ke krberror.Krberror
	if !errors.As(err, &ke) {
		return fmt.Errorf("%w: %s: %v", ErrKerberos, what, err)
	}
	msg := ke.Error()
	for _, c := range kdcCodes {
		if strings.Contains(msg, codeName(c.code)) {
			return fmt.Errorf("%w: %s: %s", c.err, what, msg)
		}
	}
	switch {
	case strings.Contains(msg, "clock skew"):
		return fmt.Errorf("%w: %s: %s", ErrClockSkew, what, msg)
	case strings.Contains(msg, "password/keytab incorrect"):
		return fmt.Errorf("%w: %s: %s", ErrKeyRejected, what, msg)
	case strings.Contains(msg, "no valid existing session"):
		return fmt.Errorf("%w: %s: %s", ErrNoTicket, what, msg)
	case ke.RootCause == krberror.NetworkingError:
		return fmt.Errorf("%w: %s: %s", ErrKDCUnreachable, what, msg)
	}
	return fmt.Errorf("%w: %s: %s", ErrKerberos, what, msg)
}

// codeName is the name gokrb5 writes for code, such as
// "KDC_ERR_C_PRINCIPAL_UNKNOWN".
func codeName(code int32) string {
	s := errorcode.Lookup(code) // "(6) KDC_ERR_C_PRINCIPAL_UNKNOWN Client not found ..."
	if i := strings.IndexByte(s, ')'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[:i]
	}
	return s
}
