package sasl

import (
	"errors"
	"testing"

	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/krberror"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// TestClassifyKDCErrors: each error code of the KDC, as gokrb5 reports it,
// is read as its sentinel; a KDC that cannot be reached is
// ErrKDCUnreachable; anything else is ErrKerberos. The tests against a real
// KDC cover the codes a test can provoke; this one covers those it cannot,
// such as the KDC's own clock skew check.
func TestClassifyKDCErrors(t *testing.T) {
	kdcErr := func(code int32) error {
		e := messages.NewKRBError(types.NewPrincipalName(nametype.KRB_NT_SRV_INST, "krbtgt/R"), "R", code, "")
		return krberror.Errorf(e, krberror.KDCError, "AS Exchange Error: kerberos error response from KDC")
	}
	for _, c := range []struct {
		err  error
		want error
	}{
		{kdcErr(errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN), ErrPrincipalUnknown},
		{kdcErr(errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN), ErrServiceUnknown},
		{kdcErr(errorcode.KRB_AP_ERR_SKEW), ErrClockSkew},
		{kdcErr(errorcode.KDC_ERR_PREAUTH_FAILED), ErrKeyRejected},
		{kdcErr(errorcode.KDC_ERR_CLIENT_REVOKED), ErrKeyRejected},
		{kdcErr(errorcode.KRB_AP_ERR_TKT_EXPIRED), ErrNoTicket},
		{kdcErr(errorcode.KDC_ERR_BADOPTION), ErrKerberos},
		{krberror.Errorf(errors.New("dial tcp 127.0.0.1:1: connection refused"), krberror.NetworkingError, "AS Exchange Error: failed sending AS_REQ to KDC"), ErrKDCUnreachable},
		{errors.New("not gokrb5's"), ErrKerberos},
	} {
		if got := classify(c.err, "logging in"); !errors.Is(got, c.want) {
			t.Errorf("classify(%v) = %v; want %v", c.err, got, c.want)
		}
	}
}
