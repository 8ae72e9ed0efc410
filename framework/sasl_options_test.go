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
