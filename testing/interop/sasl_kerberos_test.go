package interop

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// TestCuratorAndZkcuratorShareAMutexOverSASLKerberos: on a server that
// requires SASL and logs in as zktest.KDCServerPrincipal, Curator
// authenticated by GSSAPI from a JAAS Client section (Krb5LoginModule, a
// keytab) and zkcurator authenticated by SASLKerberos from a keytab of
// another principal share an InterProcessMutex whose nodes carry sasl ACLs
// for the two principals (name@REALM, the server's default identity). With
// either holding, the other waits behind it and gets the lock after the
// release, never before; a third principal is refused the lock with NoAuth,
// and a Curator that does not authenticate is refused every operation.
func TestCuratorAndZkcuratorShareAMutexOverSASLKerberos(t *testing.T) {
	kdc := zktest.StartKDC(t)
	keytabs := map[string]string{}
	for _, name := range []string{"curator", "zkcurator", "mallory"} {
		kt, err := kdc.AddPrincipal(name)
		if err != nil {
			t.Fatal(err)
		}
		keytabs[name] = kt
	}
	id := func(name string) string { return name + "@" + zktest.KDCRealm }
	srv := zktest.StartServer(t, zktest.WithSASLKerberos(kdc), zktest.WithSASLRequired())
	jaas, err := WriteJAASKerberosClient(t.TempDir(), id("curator"), keytabs["curator"])
	if err != nil {
		t.Fatal(err)
	}
	java := StartHelper(t, srv.Addr(), WithSASL(jaas),
		WithSystemProperty("java.security.krb5.conf", kdc.Krb5Conf()),
		WithACL("sasl:"+id("curator"), "sasl:"+id("zkcurator")))
	both := framework.SASLACLProvider(id("curator"), id("zkcurator"))
	kerberos := func(name string) framework.Option {
		return framework.WithSASL(framework.SASLKerberos(name,
			framework.SASLKeytab(keytabs[name]), framework.SASLKrb5Config(kdc.Krb5Conf())))
	}
	gc := zkclient.New(t, srv.Addr(), kerberos("zkcurator"), framework.WithACLProvider(both))

	shareAMutexUnderACL(t, gc, java, "/interop/krb", both.DefaultACL())

	ctx := testContext(t, 40*time.Second)
	mallory := zkclient.New(t, srv.Addr(), kerberos("mallory"))
	refusedTheLock(t, ctx, mallory, "/interop/krb/"+firstName(true))
	anon := StartHelper(t, srv.Addr(), WithName("curator-NoSASL"))
	if got, err := anon.TryOp(ctx, "read", "/interop/krb"); err != nil || got != "SESSIONCLOSEDREQUIRESASLAUTH" {
		t.Errorf("an unauthenticated Curator's read = %q, %v; want SESSIONCLOSEDREQUIRESASLAUTH", got, err)
	}
}

// TestWriteJAASKerberosClient: the Client section logs in from the keytab
// only, in a file its owner alone may read; an empty principal or keytab, or
// one a JAAS file cannot quote, is refused with an error naming it.
func TestWriteJAASKerberosClient(t *testing.T) {
	dir := t.TempDir()
	path, err := WriteJAASKerberosClient(dir, "svc@"+zktest.KDCRealm, "/keys/svc.keytab")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Client {", "com.sun.security.auth.module.Krb5LoginModule required",
		`keyTab="/keys/svc.keytab"`, `principal="svc@` + zktest.KDCRealm + `"`, "useKeyTab=true",
		"useTicketCache=false", "doNotPrompt=true;"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JAAS file lacks %q:\n%s", want, b)
		}
	}
	if fi, err := os.Stat(path); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("JAAS file mode = %v; want 0600", fi.Mode().Perm())
	}
	for _, bad := range [][2]string{{"", "/k"}, {"svc", ""}, {`sv"c`, "/k"}, {"svc", "/k\\x"}, {"svc\n", "/k"}} {
		_, err := WriteJAASKerberosClient(dir, bad[0], bad[1])
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad[0])) || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad[1])) {
			t.Errorf("WriteJAASKerberosClient(%q, %q) = %v; want an error naming both", bad[0], bad[1], err)
		}
	}
}
