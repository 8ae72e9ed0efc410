package main

import (
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/testing/zktest"
)

// TestSASLKerberos: with --sasl-mechanism GSSAPI, --principal and --keytab
// (krb5.conf from $KRB5_CONFIG), zkcurator authenticates by Kerberos to a
// server that requires SASL, and --acl creator gives its nodes to the
// principal; a principal the KDC does not know exits 77 naming it.
func TestSASLKerberos(t *testing.T) {
	kdc := zktest.StartKDC(t)
	srv := zktest.StartServer(t, zktest.WithSASLKerberos(kdc), zktest.WithSASLRequired())
	keytab, err := kdc.AddPrincipal("zkcli")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"KRB5_CONFIG=" + kdc.Krb5Conf()}
	path := testPath(t)
	args := func(action, principal string, more ...string) []string {
		flags := []string{"--session-timeout", "20s", "--connect-timeout", "15s",
			"--sasl-mechanism", "GSSAPI", "--principal", principal, "--keytab", keytab}
		return append(append(queueArgs(srv.ConnectString(), action, flags...), more...), path)
	}

	put := startEnv(t, env, append(args("put", "zkcli", "--acl", "creator"), "item")...)
	if code := put.wait(t); code != 0 {
		t.Fatalf("queue put over Kerberos: status %d, stderr %q", code, put.stderr.String())
	}
	take := startEnv(t, env, args("take", "zkcli", "--wait", "10s")...)
	if code := take.wait(t); code != 0 || take.stdout.String() != "item\n" {
		t.Fatalf("queue take over Kerberos: status %d, stdout %q, stderr %q; want the item", code, take.stdout.String(), take.stderr.String())
	}

	stranger := startEnv(t, env, args("take", "stranger", "--wait", "10s")...)
	code := stranger.wait(t)
	if stderr := stranger.stderr.String(); code != exitNoPermission || !strings.Contains(stderr, "stranger") {
		t.Errorf("an unknown principal: status %d, stderr %q; want %d naming it", code, stderr, exitNoPermission)
	}
}
