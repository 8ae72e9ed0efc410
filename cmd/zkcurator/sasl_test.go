package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The SASL passwords of the tests: a test fails if one shows up in
// zkcurator's output.
const (
	saslAlicePassword = "alice-pw-5e1c0b"
	saslWrongPassword = "wrong-pw-93ad7f"
)

// secretFile writes text to a new file in dir and returns its path.
func secretFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// noSASLPassword fails t if a test password is in p's output.
func noSASLPassword(t *testing.T, p *proc) {
	t.Helper()
	for _, out := range []string{p.stdout.String(), p.stderr.String()} {
		for _, pw := range []string{saslAlicePassword, saslWrongPassword} {
			if strings.Contains(out, pw) {
				t.Errorf("a password appears in zkcurator's output: %s", out)
			}
		}
	}
}

// TestSASLDigest: on a server that requires SASL, zkcurator authenticated
// by --sasl-user with the password of --sasl-password-file or
// $ZK_SASL_PASSWORD is served (and --acl creator gives its nodes to
// sasl:USER); a wrong password exits 77 saying the server refused the
// credentials. No password appears in the output, --verbose log included.
func TestSASLDigest(t *testing.T) {
	srv := zktest.StartServer(t, zktest.WithSASLDigest(map[string]string{"alice": saslAlicePassword}), zktest.WithSASLRequired())
	dir := t.TempDir()
	good := secretFile(t, dir, "good", saslAlicePassword+"\n")
	wrong := secretFile(t, dir, "wrong", saslWrongPassword)
	path := testPath(t)
	args := func(action string, more ...string) []string {
		// Patient flags: on a loaded machine a slow exchange must not pass
		// for an unreachable server.
		flags := []string{"--verbose", "--session-timeout", "20s", "--connect-timeout", "15s", "--sasl-user", "alice"}
		return append(append(queueArgs(srv.ConnectString(), action, flags...), more...), path)
	}

	put := startEnv(t, nil, append(args("put", "--sasl-password-file", good, "--acl", "creator"), "item")...)
	if code := put.wait(t); code != 0 {
		t.Fatalf("queue put with --sasl-password-file: status %d, stderr %q", code, put.stderr.String())
	}
	noSASLPassword(t, put)

	alice, err := framework.NewClient(srv.ConnectString(), retryPolicy, framework.WithSASL(framework.SASLDigest("alice", saslAlicePassword)))
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alice.Close() })
	if err := alice.BlockUntilConnected(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	acl, _, err := alice.GetACL(testCtx(t), path)
	if err != nil || len(acl) != 1 || acl[0].Scheme != "sasl" || acl[0].ID != "alice" {
		t.Errorf("ACL of %s: %v, err %v; want sasl:alice alone", path, acl, err)
	}

	take := startEnv(t, []string{envSASLPassword + "=" + saslAlicePassword}, args("take", "--wait", "10s")...)
	if code := take.wait(t); code != 0 || take.stdout.String() != "item\n" {
		t.Errorf("queue take with $%s: status %d, stdout %q, stderr %q; want the item", envSASLPassword, code, take.stdout.String(), take.stderr.String())
	}
	noSASLPassword(t, take)

	refused := startEnv(t, []string{envSASLPassword + "=" + saslAlicePassword}, args("take", "--sasl-password-file", wrong, "--wait", "10s")...)
	code := refused.wait(t)
	stderr := refused.stderr.String()
	if code != exitNoPermission || !strings.Contains(stderr, "refused the SASL authentication") || !strings.Contains(stderr, `user "alice"`) {
		t.Errorf("a wrong password: status %d, stderr %q; want %d and the server's refusal naming alice", code, stderr, exitNoPermission)
	}
	noSASLPassword(t, refused)
}

// TestSASLFlagsRefusedAtOnce: SASL flags that cannot work exit 64 before
// any network call (the ensemble given is unreachable: a call would be
// 69), naming the flag and value but never the password.
func TestSASLFlagsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	good := secretFile(t, dir, "good", saslAlicePassword)
	empty := secretFile(t, dir, "empty", "\n")
	twoLines := secretFile(t, dir, "two-lines", saslAlicePassword+"\n"+saslWrongPassword+"\n")
	keytab := secretFile(t, dir, "zk.keytab", "\x05\x02")
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"no password", "", []string{"--sasl-user", "alice"}, "--sasl-user alice needs a password: --sasl-password-file FILE or $ZK_SASL_PASSWORD"},
		{"missing password file", "", []string{"--sasl-user", "alice", "--sasl-password-file", filepath.Join(dir, "none")}, "read --sasl-password-file: open " + filepath.Join(dir, "none")},
		{"empty password file", saslAlicePassword, []string{"--sasl-user", "alice", "--sasl-password-file", empty}, "bad --sasl-password-file " + empty + ": it is empty"},
		{"two-line password file", "", []string{"--sasl-user", "alice", "--sasl-password-file", twoLines}, "bad --sasl-password-file " + twoLines + ": the password is more than one line"},
		{"password file without user", "", []string{"--sasl-password-file", good}, "--sasl-password-file needs --sasl-user"},
		{"user with a space", saslAlicePassword, []string{"--sasl-user", "al ice"}, `bad --sasl-user "al ice"`},
		{"unknown mechanism", "", []string{"--sasl-mechanism", "PLAIN", "--sasl-user", "alice"}, `bad --sasl-mechanism "PLAIN": want DIGEST-MD5 or GSSAPI`},
		{"principal with digest", "", []string{"--principal", "zkcli@EXAMPLE.COM"}, "--principal and --keytab are for --sasl-mechanism GSSAPI"},
		{"GSSAPI without keytab", "", []string{"--sasl-mechanism", "GSSAPI", "--principal", "zkcli@EXAMPLE.COM"}, "--sasl-mechanism GSSAPI needs --principal and --keytab"},
		{"GSSAPI with a user", saslAlicePassword, []string{"--sasl-mechanism", "GSSAPI", "--sasl-user", "alice"}, "--sasl-user and --sasl-password-file are for --sasl-mechanism DIGEST-MD5"},
		{"bad principal", "", []string{"--sasl-mechanism", "GSSAPI", "--principal", "zkcli@A@B", "--keytab", keytab}, `bad --principal "zkcli@A@B"`},
		{"missing keytab", "", []string{"--sasl-mechanism", "GSSAPI", "--principal", "zkcli/host@EXAMPLE.COM", "--keytab", filepath.Join(dir, "none")}, "read --keytab: open " + filepath.Join(dir, "none")},
		{"keytab a directory", "", []string{"--sasl-mechanism", "GSSAPI", "--principal", "zkcli", "--keytab", dir}, "bad --keytab " + dir + ": not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"watch", "--connect", closedAddr(t), "--connect-timeout", "100ms"}, tc.args...), "/app")
			p := startEnv(t, []string{envSASLPassword + "=" + tc.env}, args...)
			code := p.wait(t)
			stderr := p.stderr.String()
			if code != exitUsage || len(toolLines(stderr)) != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("zkcurator %q: status %d, stderr %q; want %d and one line with %q", args, code, stderr, exitUsage, tc.want)
			}
			noSASLPassword(t, p)
		})
	}
}
