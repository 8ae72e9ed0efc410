package sasl

import (
	"errors"
	"strings"
	"testing"
)

// RFC 2831 section 4's example (IMAP), whose response and rspauth are
// fixed by the nonce and cnonce it gives (rspauth as RFC 2831 prints it:
// ea40f60335c427b5527b84dbabcdfffd).
func rfcExample() *Digest {
	d := NewDigest("chris", "secret", "imap", "elwood.innosoft.com", "")
	d.cnonce = func() (string, error) { return "OA6MHXh6VqTrRk", nil }
	return d
}

const rfcChallenge = `realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",qop="auth",algorithm=md5-sess,charset=utf-8`

func TestDigestRFC2831Example(t *testing.T) {
	d := rfcExample()
	if init, err := d.Start(); err != nil || len(init) != 0 {
		t.Fatalf("Start = %q, %v; want an empty initial response", init, err)
	}
	resp, err := d.Step([]byte(rfcChallenge))
	if err != nil {
		t.Fatal(err)
	}
	want := `charset=utf-8,username="chris",realm="elwood.innosoft.com",nonce="OA6MG9tEQGm2hh",nc=00000001,cnonce="OA6MHXh6VqTrRk",digest-uri="imap/elwood.innosoft.com",response=d388dad90d4bbd760a152321f2143af7,qop=auth`
	if string(resp) != want {
		t.Fatalf("response\n got %s\nwant %s", resp, want)
	}
	if d.Done() {
		t.Fatal("Done before the server's rspauth")
	}
	last, err := d.Step([]byte("rspauth=ea40f60335c427b5527b84dbabcdfffd"))
	if err != nil || len(last) != 0 {
		t.Fatalf("Step(rspauth) = %q, %v", last, err)
	}
	if !d.Done() {
		t.Fatal("not Done after a good rspauth")
	}
	if _, err := d.Step(nil); !errors.Is(err, ErrSequence) {
		t.Fatalf("Step after Done = %v; want ErrSequence", err)
	}
}

func TestDigestRefusesWrongRspauth(t *testing.T) {
	d := rfcExample()
	d.Start()
	if _, err := d.Step([]byte(rfcChallenge)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Step([]byte("rspauth=00000000000000000000000000000000")); !errors.Is(err, ErrServerProof) {
		t.Fatalf("wrong rspauth: %v; want ErrServerProof", err)
	}
	if d.Done() {
		t.Fatal("Done after a wrong rspauth")
	}
}

func TestDigestRefusesBadChallenges(t *testing.T) {
	for _, c := range []string{
		`realm="r",qop="auth",algorithm=md5-sess`,      // no nonce
		`nonce="a",nonce="b",algorithm=md5-sess`,       // two nonces
		`nonce="a",qop="auth"`,                         // no algorithm
		`nonce="a",qop="auth-conf",algorithm=md5-sess`, // no auth qop
		`nonce="a,algorithm=md5-sess`,                  // unterminated
		`nonce`,                                        // no value
	} {
		d := rfcExample()
		d.Start()
		if _, err := d.Step([]byte(c)); !errors.Is(err, ErrChallenge) {
			t.Errorf("challenge %s: %v; want ErrChallenge", c, err)
		}
	}
}

func TestDigestUsesOwnRealmAndQuotes(t *testing.T) {
	d := NewDigest(`a"b\c`, "pw", "zookeeper", "zk-sasl-md5", "zk-sasl-md5")
	d.Start()
	resp, err := d.Step([]byte(`nonce="n",qop="auth,auth-int",algorithm=md5-sess`))
	if err != nil {
		t.Fatal(err)
	}
	s := string(resp)
	for _, want := range []string{`username="a\"b\\c"`, `realm="zk-sasl-md5"`, `digest-uri="zookeeper/zk-sasl-md5"`} {
		if !strings.Contains(s, want) {
			t.Errorf("response %s lacks %s", s, want)
		}
	}
	if strings.Contains(s, "charset") || strings.Contains(s, "pw") {
		t.Errorf("response %s: charset without the server's, or the password", s)
	}
	dir, err := parseDirectives(s)
	if err != nil || first(dir, "username") != `a"b\c` {
		t.Errorf("round trip of the quoted user: %q, %v", first(dir, "username"), err)
	}
}
