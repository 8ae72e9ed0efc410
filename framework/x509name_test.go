package framework_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// Attribute types of the subjects below.
var (
	oidCN     = asn1.ObjectIdentifier{2, 5, 4, 3}
	oidOU     = asn1.ObjectIdentifier{2, 5, 4, 11}
	oidO      = asn1.ObjectIdentifier{2, 5, 4, 10}
	oidC      = asn1.ObjectIdentifier{2, 5, 4, 6}
	oidL      = asn1.ObjectIdentifier{2, 5, 4, 7}
	oidST     = asn1.ObjectIdentifier{2, 5, 4, 8}
	oidStreet = asn1.ObjectIdentifier{2, 5, 4, 9}
	oidSerial = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidDC     = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}
	oidUID    = asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}
	oidEmail  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 1}
)

// ava is one attribute of a test subject: its type, the ASN.1 tag of its
// value and the value's bytes.
type ava struct {
	oid   asn1.ObjectIdentifier
	tag   int
	value []byte
}

func utf8AVA(oid asn1.ObjectIdentifier, s string) ava {
	return ava{oid, asn1.TagUTF8String, []byte(s)}
}
func printable(oid asn1.ObjectIdentifier, s string) ava {
	return ava{oid, asn1.TagPrintableString, []byte(s)}
}
func ia5(oid asn1.ObjectIdentifier, s string) ava { return ava{oid, asn1.TagIA5String, []byte(s)} }

// derName encodes a Name of RDNs in the order given, each RDN's attributes
// in the order given (as a certificate may carry them).
func derName(t *testing.T, rdns ...[]ava) []byte {
	t.Helper()
	var seq []byte
	for _, rdn := range rdns {
		var set []byte
		for _, a := range rdn {
			b, err := asn1.Marshal(struct {
				Type  asn1.ObjectIdentifier
				Value asn1.RawValue
			}{a.oid, asn1.RawValue{Class: asn1.ClassUniversal, Tag: a.tag, Bytes: a.value}})
			if err != nil {
				t.Fatal(err)
			}
			set = append(set, b...)
		}
		b, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSet, IsCompound: true, Bytes: set})
		if err != nil {
			t.Fatal(err)
		}
		seq = append(seq, b...)
	}
	b, err := asn1.Marshal(asn1.RawValue{Class: asn1.ClassUniversal, Tag: asn1.TagSequence, IsCompound: true, Bytes: seq})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rdn(avas ...ava) []ava { return avas }

// x509SubjectCases are subjects with the names Java's
// X500Principal.getName() gives them (checked by TestX509SubjectMatchesJava).
func x509SubjectCases(t *testing.T) []struct {
	name string
	der  []byte
	want string
} {
	return []struct {
		name string
		der  []byte
		want string
	}{
		{"DCFirst", derName(t, rdn(ia5(oidDC, "com")), rdn(ia5(oidDC, "example")), rdn(utf8AVA(oidOU, "payments")), rdn(utf8AVA(oidCN, "orders"))),
			"CN=orders,OU=payments,DC=example,DC=com"},
		{"CNFirst", derName(t, rdn(utf8AVA(oidCN, "orders")), rdn(utf8AVA(oidOU, "payments")), rdn(ia5(oidDC, "example")), rdn(ia5(oidDC, "com"))),
			"DC=com,DC=example,OU=payments,CN=orders"},
		{"Keywords", derName(t, rdn(printable(oidC, "DE")), rdn(utf8AVA(oidST, "Berlin")), rdn(utf8AVA(oidL, "Mitte")),
			rdn(utf8AVA(oidStreet, "Unter den Linden 1")), rdn(utf8AVA(oidO, "Example")), rdn(utf8AVA(oidUID, "u42")), rdn(utf8AVA(oidCN, "orders"))),
			"CN=orders,UID=u42,O=Example,STREET=Unter den Linden 1,L=Mitte,ST=Berlin,C=DE"},
		{"EmailAddress", derName(t, rdn(utf8AVA(oidO, "Example")), rdn(utf8AVA(oidCN, "orders")), rdn(ia5(oidEmail, "orders@example.com"))),
			"1.2.840.113549.1.9.1=#16126f7264657273406578616d706c652e636f6d,CN=orders,O=Example"},
		{"SerialNumberHasNoKeyword", derName(t, rdn(printable(oidSerial, "1234")), rdn(utf8AVA(oidCN, "orders"))),
			"CN=orders,2.5.4.5=#130431323334"},
		{"MultiValuedRDN", derName(t, rdn(utf8AVA(oidO, "Example")), rdn(utf8AVA(oidCN, "orders"), utf8AVA(oidUID, "u42"))),
			"CN=orders+UID=u42,O=Example"},
		{"Escapes", derName(t, rdn(utf8AVA(oidCN, `a,b+c"d\e<f>g;h=i#j`))),
			`CN=a\,b\+c\"d\\e\<f\>g\;h\=i\#j`},
		{"LeadingHashAndSpaces", derName(t, rdn(utf8AVA(oidOU, "#team")), rdn(utf8AVA(oidCN, "  two  "))),
			`CN=\ \ two\ \ ,OU=\#team`},
		{"NonASCII", derName(t, rdn(utf8AVA(oidL, "Zürich")), rdn(utf8AVA(oidCN, "日本"))),
			"CN=日本,L=Zürich"},
		{"NotAString", derName(t, rdn(ava{oidCN, asn1.TagInteger, []byte{0x2a}})),
			"CN=#02012a"},
	}
}

func TestX509SubjectRendersAsZooKeeper(t *testing.T) {
	for _, tc := range x509SubjectCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			if got := framework.X509Subject(&x509.Certificate{RawSubject: tc.der}); got != tc.want {
				t.Errorf("X509Subject = %q, want %q", got, tc.want)
			}
		})
	}
}

// The table above is Java's own rendering: X500Principal.getName(), which
// ZooKeeper's x509 provider uses, names every subject as X509Subject does.
func TestX509SubjectMatchesJava(t *testing.T) {
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatalf("no java to check the names against: %v", err)
	}
	cases := x509SubjectCases(t)
	var in bytes.Buffer
	for _, tc := range cases {
		in.WriteString(hex.EncodeToString(tc.der) + "\n")
	}
	cmd := exec.Command(java, "testdata/X500Names.java")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(cases) {
		t.Fatalf("java printed %d names for %d subjects: %q", len(lines), len(cases), out)
	}
	for i, tc := range cases {
		b, err := hex.DecodeString(lines[i])
		if err != nil {
			t.Fatal(err)
		}
		javaName := string(b)
		if javaName != tc.want {
			t.Errorf("%s: Java names it %q, the table says %q", tc.name, javaName, tc.want)
		}
		if got := framework.X509Subject(&x509.Certificate{RawSubject: tc.der}); got != javaName {
			t.Errorf("%s: X509Subject = %q, Java = %q", tc.name, got, javaName)
		}
	}
}

// ZooKeeper names a client by X509Subject: a node created under
// X509ACLProvider(X509Subject(cert)) is readable by that certificate, for a
// subject whose domain components come first, as directory-issued ones do.
func TestX509SubjectIsZooKeepersIdentity(t *testing.T) {
	ca := zktest.StartCA(t, "zk")
	// The client's certificate comes from a second CA, which can issue any
	// subject; the server trusts it beside the first.
	issuer := newSubjectCA(t)
	f, err := os.OpenFile(ca.CertFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: issuer.cert.Raw}))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := zktest.StartServer(t, zktest.WithTLS(ca, zktest.ClientAuthNeed))

	subject := derName(t, rdn(ia5(oidDC, "com")), rdn(ia5(oidDC, "example")), rdn(utf8AVA(oidOU, "payments")), rdn(utf8AVA(oidCN, "orders")))
	leaf, key := issuer.issue(t, subject)
	id := framework.X509Subject(leaf)
	cfg := ca.ClientConfig(nil)
	cfg.Certificates = []tls.Certificate{{Certificate: [][]byte{leaf.Raw}, PrivateKey: key, Leaf: leaf}}
	c := newClient(t, srv.SecureAddr(), framework.WithTLS(cfg), framework.WithACLProvider(framework.X509ACLProvider(id)))
	ctx := testCtx(t)
	root := testRoot(t)
	if _, err := c.Create(ctx, root, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if data, _, err := c.GetData(ctx, root); err != nil || string(data) != "x" {
		t.Fatalf("GetData of a node under the certificate's own x509 ACL = %q, %v", data, err)
	}
	if err := c.Delete(ctx, root); err != nil {
		t.Fatalf("Delete: %v", err)
	}
}

// subjectCA signs client certificates with whatever subject a test gives.
type subjectCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newSubjectCA(t *testing.T) *subjectCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "subject CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &subjectCA{cert: cert, key: key}
}

func (ca *subjectCA) issue(t *testing.T, rawSubject []byte) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		RawSubject:   rawSubject,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}
