package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
)

// TestAuthFromFileAndEnvironment: credentials from --auth-file and ZK_AUTH
// are sent (participants reads a contender node only digest:alice may read),
// and no credential appears on stderr, with --verbose, on success or on any
// error, even for malformed input.
func TestAuthFromFileAndEnvironment(t *testing.T) {
	srv := sharedServer(t)
	path := testPath(t)
	const secret = "s3cret-pw"
	c := testClient(t, srv.ConnectString())
	if _, err := c.Create(testCtx(t), framework.JoinPath(path, protection.Name(protection.NewID(), "lock-")), []byte("alice-only"),
		framework.WithMode(framework.EphemeralSequential), framework.CreatingParentsIfNeeded(),
		framework.WithACL(zk.DigestACL(zk.PermAll, "alice", secret)...)); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	file := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	good := file("good", "# alice\n\ndigest:alice:"+secret+"\n")
	wrong := file("wrong", "digest:alice:not-"+secret+"\n")
	malformed := file("malformed", "digest:alice:"+secret+"\ndigest"+secret+"\n")
	conn := append(connArgs(srv.ConnectString()), "--verbose")
	for _, tc := range []struct {
		name string
		env  string
		args []string
		code int
		want string
	}{
		{"auth file", "", []string{"--auth-file", good}, 0, ""},
		{"ZK_AUTH", "digest:alice:" + secret, nil, 0, ""},
		{"--auth", "", []string{"--auth", "digest:alice:" + secret}, 0, ""},
		{"no credentials", "", nil, exitNoPermission, "not authenticated"},
		{"wrong credentials", "", []string{"--auth-file", wrong}, exitNoPermission, "not authenticated"},
		{"malformed file", "", []string{"--auth-file", malformed}, exitUsage, "bad --auth-file " + malformed + ", line 2"},
		{"malformed ZK_AUTH", "digest" + secret, nil, exitUsage, "bad $ZK_AUTH, line 1"},
		{"malformed --auth", "", []string{"--auth", "digest" + secret}, exitUsage, "bad --auth (number 1 of 1)"},
		{"missing file", "", []string{"--auth-file", filepath.Join(dir, "none")}, exitUsage, "read --auth-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startEnv(t, []string{envAuth + "=" + tc.env}, append(append([]string{"participants"}, append(conn, tc.args...)...), path)...)
			code := p.wait(t)
			stderr, stdout := p.stderr.String(), p.stdout.String()
			if strings.Contains(stderr, secret) || strings.Contains(stdout, secret) {
				t.Errorf("a credential appears in the output:\n%s\n%s", stdout, stderr)
			}
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("status %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if tc.code == 0 && !strings.Contains(stdout, "alice-only") {
				t.Errorf("participants printed %q, want the node only alice may read", stdout)
			}
		})
	}
}
