package interop

import (
	"fmt"
	"os"
	"strings"
)

// WithSASL makes Curator's ZooKeeper client authenticate by SASL with the
// Client section of the JAAS file jaasFile (java.security.auth.login.config,
// with zookeeper.sasl.client=true), as a Java service does; see
// WriteJAASDigestClient. Curator helpers only.
func WithSASL(jaasFile string) Option {
	return func(c *config) {
		WithSystemProperty("java.security.auth.login.config", jaasFile)(c)
		WithSystemProperty("zookeeper.sasl.client", "true")(c) // after Start's "false", so it wins
	}
}

// WriteJAASDigestClient writes into dir a JAAS file whose Client section
// logs in as user with password through ZooKeeper's DigestLoginModule (the
// client side of DIGEST-MD5), readable by its owner only, and returns its
// path.
func WriteJAASDigestClient(dir, user, password string) (string, error) {
	if user == "" {
		return "", fmt.Errorf("interop: JAAS: the user is empty")
	}
	if strings.ContainsAny(user+password, "\"\\\n") {
		return "", fmt.Errorf("interop: JAAS: user %q or its password has a character a JAAS file cannot hold", user)
	}
	text := "Client {\n  org.apache.zookeeper.server.auth.DigestLoginModule required\n" +
		"  username=\"" + user + "\"\n  password=\"" + password + "\";\n};\n"
	return writeJAAS(dir, text)
}

// WriteJAASKerberosClient writes into dir a JAAS file whose Client section
// logs in as principal (name@REALM) with its key in the keytab file keytab
// through Java's Krb5LoginModule (the client side of GSSAPI), never reading
// a credentials cache or prompting, readable by its owner only, and returns
// its path. The helper's JVM also needs the realm's krb5.conf
// (java.security.krb5.conf, see WithSystemProperty).
func WriteJAASKerberosClient(dir, principal, keytab string) (string, error) {
	if principal == "" || keytab == "" {
		return "", fmt.Errorf("interop: JAAS: principal %q or keytab %q is empty", principal, keytab)
	}
	if strings.ContainsAny(principal+keytab, "\"\\\n") {
		return "", fmt.Errorf("interop: JAAS: principal %q or keytab %q has a character a JAAS file cannot hold", principal, keytab)
	}
	return writeJAAS(dir, "Client {\n  com.sun.security.auth.module.Krb5LoginModule required\n"+
		"  useKeyTab=true\n  keyTab=\""+keytab+"\"\n  principal=\""+principal+"\"\n"+
		"  storeKey=true\n  useTicketCache=false\n  doNotPrompt=true;\n};\n")
}

// writeJAAS writes text to a new file in dir, mode 0600, and returns its path.
func writeJAAS(dir, text string) (string, error) {
	f, err := os.CreateTemp(dir, "jaas-client-*.conf") // mode 0600
	if err != nil {
		return "", fmt.Errorf("interop: JAAS: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return "", fmt.Errorf("interop: JAAS: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("interop: JAAS: %w", err)
	}
	return f.Name(), nil
}
