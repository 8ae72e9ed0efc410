package framework_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/jcmturner/gokrb5/v8/keytab"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// krbClient is the client principal of the Kerberos tests; its ACL
// identity is krbClientID.
const (
	krbClient   = "zkclient"
	krbClientID = krbClient + "@" + zktest.KDCRealm
)

// krbRealm is a KDC, a ZooKeeper that logs in from its keytab, and the
// keytab of krbClient.
type krbRealm struct {
	kdc    *zktest.KDC
	srv    *zktest.Server
	keytab string // krbClient's
}

// startKerberos starts a KDC and a ZooKeeper WithSASLKerberos (and opts).
func startKerberos(t *testing.T, opts ...zktest.ServerOption) *krbRealm {
	t.Helper()
	kdc := zktest.StartKDC(t)
	kt, err := kdc.AddPrincipal(krbClient)
	if err != nil {
		t.Fatal(err)
	}
	srv := zktest.StartServer(t, append([]zktest.ServerOption{zktest.WithSASLKerberos(kdc)}, opts...)...)
	return &krbRealm{kdc: kdc, srv: srv, keytab: kt}
}

// sasl is SASLKerberos for principal with the realm's krb5.conf.
func (r *krbRealm) sasl(principal string, opts ...framework.SASLOption) framework.Option {
	opts = append([]framework.SASLOption{framework.SASLKrb5Config(r.kdc.Krb5Conf())}, opts...)
	return framework.WithSASL(framework.SASLKerberos(principal, opts...))
}

// noKeys fails t if a key of a keytab is in s: raw, in hex or in base64.
func noKeys(t *testing.T, what, s string, keytabs ...string) {
	t.Helper()
	for _, path := range keytabs {
		kt, err := keytab.Load(path)
		if err != nil {
			t.Fatalf("read keytab %s: %v", path, err)
		}
		for _, e := range kt.Entries {
			k := e.Key.KeyValue
			for _, form := range []string{string(k), hex.EncodeToString(k), strings.ToUpper(hex.EncodeToString(k)),
				base64.StdEncoding.EncodeToString(k), base64.RawStdEncoding.EncodeToString(k)} {
				if strings.Contains(s, form) {
					t.Errorf("%s holds a key of %s", what, path)
				}
			}
		}
	}
}

// TestSASLKerberosCreatorOnlyNode: on a server that requires SASL, a
// client authenticated by GSSAPI from a keytab writes and reads a node only
// its principal (sasl:zkclient@REALM) may use; the auth scheme names that
// identity; a client authenticated from a credentials cache as another
// principal is served but refused on the node; no key is in a log line.
func TestSASLKerberosCreatorOnlyNode(t *testing.T) {
	r := startKerberos(t, zktest.WithSASLRequired())
	log := newSASLLog(t)
	c := newClient(t, r.srv.Addr(), framework.WithLogger(log.logger()),
		r.sasl(krbClient, framework.SASLKeytab(r.keytab)))
	ctx := testCtx(t)
	path := "/krb-creator"
	if _, err := c.Create(ctx, path, []byte("its"), framework.WithACL(creatorOnly(krbClientID)...)); err != nil {
		t.Fatalf("Create as %s: %v", krbClientID, err)
	}
	if _, err := c.SetData(ctx, path, []byte("still its"), -1); err != nil {
		t.Fatalf("SetData as %s: %v", krbClientID, err)
	}
	if data, _, err := c.GetData(ctx, path); err != nil || string(data) != "still its" {
		t.Fatalf("GetData as %s = %q, %v", krbClientID, data, err)
	}
	if _, err := c.Create(ctx, path+"-auth", nil, framework.WithACL(zk.AuthACL(zk.PermAll)...)); err != nil {
		t.Fatalf("Create with the auth scheme: %v", err)
	}
	if acl, _, err := c.GetACL(ctx, path+"-auth"); err != nil || len(acl) != 1 || acl[0].Scheme != "sasl" || acl[0].ID != krbClientID {
		t.Errorf("ACL of a node created with the auth scheme = %v, %v; want sasl:%s", acl, err, krbClientID)
	}

	bobKeytab, err := r.kdc.AddPrincipal("bob")
	if err != nil {
		t.Fatal(err)
	}
	ccache, err := r.kdc.Kinit("bob", bobKeytab, testWait*4)
	if err != nil {
		t.Fatal(err)
	}
	bob := newClient(t, r.srv.Addr(), r.sasl("", framework.SASLCredentialsCache(ccache)))
	if _, err := bob.Exists(ctx, "/"); err != nil {
		t.Errorf("Exists as bob, authenticated from a credentials cache: %v", err)
	}
	if _, _, err := bob.GetData(ctx, path); !errors.Is(err, zk.ErrNoAuth) {
		t.Errorf("GetData as bob = %v; want zk.ErrNoAuth", err)
	}
	if !strings.Contains(log.String(), "SASL authenticated") {
		t.Errorf("no line of the SASL authentication in the debug log")
	}
	noKeys(t, "the client's log", log.String(), r.keytab, bobKeytab)
}
