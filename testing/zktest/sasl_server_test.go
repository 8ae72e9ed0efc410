package zktest

import (
	"os"
	"strings"
	"testing"
)

func TestSASLServerOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		opts []ServerOption
		want string
	}{
		{[]ServerOption{WithSASLRequired()}, "no users"},
		{[]ServerOption{WithSASLDigest(map[string]string{})}, "no users"},
		{[]ServerOption{WithSASLDigest(map[string]string{"a b": "pw"})}, `user "a b"`},
		{[]ServerOption{WithSASLDigest(map[string]string{"a": `p"w`})}, `user "a"`},
	} {
		if _, err := newServerConfig(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("newServerConfig = %v; want an error naming %s", err, c.want)
		}
	}
}

// TestSASLServerRequiresSASL: a server started WithSASLDigest and
// WithSASLRequired writes a JAAS Server section with the users given, runs
// with the flags that enable SASL and require it, and refuses a request of
// a session that did not authenticate; without WithSASLRequired the same
// request is served.
func TestSASLServerRequiresSASL(t *testing.T) {
	users := map[string]string{"alice": "pw-a", "bob": "pw-b"}
	open := StartServer(t, WithSASLDigest(users))
	required := StartServer(t, WithSASLDigest(users), WithSASLRequired())

	jaas, err := os.ReadFile(required.inst.jaasFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Server {", "DigestLoginModule required", `user_alice="pw-a"`, `user_bob="pw-b"`} {
		if !strings.Contains(string(jaas), want) {
			t.Errorf("JAAS file lacks %s:\n%s", want, jaas)
		}
	}
	args := strings.Join(required.inst.jvmArgs("cp", "cfg"), " ")
	for _, want := range []string{"-Djava.security.auth.login.config=" + required.inst.jaasFile,
		"-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
		"-Dzookeeper.sessionRequireClientSASLAuth=true"} {
		if !strings.Contains(args, want) {
			t.Errorf("JVM flags lack %s: %s", want, args)
		}
	}

	if _, _, err := connect(t, open.Addr(), 4*defaultTickTime*10).Exists("/"); err != nil {
		t.Fatalf("Exists without SASL on a server that does not require it: %v", err)
	}
	if _, _, err := connect(t, required.Addr(), 4*defaultTickTime*10).Exists("/"); err == nil {
		t.Fatal("a server that requires SASL served a session that did not authenticate")
	}
}
