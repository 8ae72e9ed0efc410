package framework_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
)

func TestWithSASLRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		s    framework.SASL
		want string
	}{
		{framework.SASL{}, "SASL mechanism is unset"},
		{framework.SASLDigest("", "pw"), "SASL user is empty"},
		{framework.SASLDigest("u\xff", "pw"), "UTF-8"},
		{framework.SASLDigest("u", "pw", framework.SASLService("")), "SASL service is empty"},
		{framework.SASLDigest("u", "pw", framework.SASLServerRealm("")), "SASL server realm is empty"},
		{framework.SASLKerberos("", framework.SASLKeytab("/k")), "a keytab needs one"},
		{framework.SASLKerberos("a@B@C"), `principal "a@B@C"`},
		{framework.SASLKerberos("a", framework.SASLService("")), "SASL service is empty"},
		{framework.SASLKerberos("a", framework.SASLKrb5Config("")), "krb5.conf path is empty"},
		{framework.SASLKerberos("a", framework.SASLCredentialsCache("")), "neither a keytab nor a credentials cache"},
		{framework.SASLKerberos("a", framework.SASLCredentialsCache("KEYRING:persistent:0")), `"KEYRING:persistent:0" is not a FILE: cache`},
	} {
		_, err := framework.NewClient("127.0.0.1:2181", testPolicy, framework.WithSASL(c.s))
		if !errors.Is(err, framework.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WithSASL(%v) = %v; want ErrInvalidArgument naming %q", c.s, err, c.want)
		}
	}
}

// A SASL value never prints its password, whatever the verb.
func TestSASLStringHidesPassword(t *testing.T) {
	s := framework.SASLDigest("alice", "s3cret-pw")
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(verb, s); strings.Contains(out, "s3cret-pw") || !strings.Contains(out, "alice") {
			t.Errorf("%s of a SASL = %q; want the user without the password", verb, out)
		}
	}
}

// A Kerberos SASL names its mechanism and principal.
func TestSASLKerberosString(t *testing.T) {
	s := framework.SASLKerberos("zkclient@R.TEST", framework.SASLKeytab("/etc/zk.keytab"))
	if out := fmt.Sprintf("%v", s); out != "SASL(GSSAPI, principal zkclient@R.TEST)" {
		t.Errorf("String = %q", out)
	}
}
