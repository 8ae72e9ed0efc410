package zktest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// serverSASL is what WithSASLDigest, WithSASLKerberos and
// WithSASLRequired recorded.
type serverSASL struct {
	users    map[string]string // user: password
	kdc      *KDC              // set by WithSASLKerberos
	required bool
}

// WithSASLDigest gives every server a JAAS Server section with ZooKeeper's
// DigestLoginModule, whose users and passwords are users, and ZooKeeper's
// SASL authentication provider, so that a client authenticated by
// DIGEST-MD5 as a user has the ACL identity sasl:user. Clients that do not
// authenticate are still served unless WithSASLRequired is given too.
func WithSASLDigest(users map[string]string) ServerOption {
	return func(c *serverConfig) {
		if c.sasl == nil {
			c.sasl = &serverSASL{}
		}
		c.sasl.users = make(map[string]string, len(users))
		for u, p := range users {
			c.sasl.users[u] = p
		}
	}
}

// WithSASLKerberos gives every server a JAAS Server section with Java's
// Krb5LoginModule, logging in as KDCServerPrincipal from a keytab of kdc's,
// and ZooKeeper's SASL authentication provider, so that a client
// authenticated by GSSAPI as name@REALM has the ACL identity
// sasl:name@REALM. It replaces WithSASLDigest's users: a server speaks one
// mechanism.
func WithSASLKerberos(kdc *KDC) ServerOption {
	return func(c *serverConfig) {
		if c.sasl == nil {
			c.sasl = &serverSASL{}
		}
		c.sasl.kdc = kdc
	}
}

// WithSASLRequired makes every server close the session of a client that
// sends a request before it authenticated by SASL
// (zookeeper.sessionRequireClientSASLAuth=true, ZooKeeper 3.8); it needs
// WithSASLDigest or WithSASLKerberos.
func WithSASLRequired() ServerOption {
	return func(c *serverConfig) {
		if c.sasl == nil {
			c.sasl = &serverSASL{}
		}
		c.sasl.required = true
	}
}

func (s *serverSASL) validate() error {
	if s == nil || s.kdc != nil {
		return nil
	}
	if len(s.users) == 0 {
		return fmt.Errorf("zktest: SASL: no users; give WithSASLDigest at least one, or WithSASLKerberos")
	}
	for u, p := range s.users {
		if u == "" || strings.ContainsAny(u, "\"\\\n= ") || strings.ContainsAny(p, "\"\\\n") {
			return fmt.Errorf("zktest: WithSASLDigest: user %q or its password has a character a JAAS file cannot hold", u)
		}
	}
	return nil
}

// jaasServerSection renders the JAAS file of the users.
func (s *serverSASL) jaasServerSection() string {
	users := make([]string, 0, len(s.users))
	for u := range s.users {
		users = append(users, u)
	}
	sort.Strings(users)
	var b strings.Builder
	b.WriteString("Server {\n  org.apache.zookeeper.server.auth.DigestLoginModule required")
	for _, u := range users {
		fmt.Fprintf(&b, "\n  user_%s=\"%s\"", u, s.users[u])
	}
	b.WriteString(";\n};\n")
	return b.String()
}

// prepareSASLLocked writes the JAAS file of a server started
// WithSASLDigest into its directory.
func (s *Server) prepareSASLLocked() error {
	a := s.inst.cfg.sasl
	if a == nil {
		return nil
	}
	section := ""
	if a.kdc != nil {
		keytab, err := a.kdc.serverKeytab()
		if err != nil {
			return err
		}
		section = krb5ServerSection(keytab)
	} else {
		section = a.jaasServerSection()
	}
	path := filepath.Join(s.dir, "jaas.conf")
	if err := os.WriteFile(path, []byte(section), 0o600); err != nil {
		return fmt.Errorf("zktest: %w", err)
	}
	s.inst.jaasFile = path
	return nil
}

// saslArgs are the JVM flags of a server started WithSASLDigest.
func (in instance) saslArgs() []string {
	a := in.cfg.sasl
	if a == nil {
		return nil
	}
	args := []string{
		"-Djava.security.auth.login.config=" + in.jaasFile,
		"-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
	}
	if a.kdc != nil {
		args = append(args, "-Djava.security.krb5.conf="+a.kdc.Krb5Conf())
	}
	if a.required {
		args = append(args, "-Dzookeeper.sessionRequireClientSASLAuth=true")
	}
	return args
}

// krb5ServerSection renders the JAAS file of a server that logs in as
// KDCServerPrincipal with the key in keytab.
func krb5ServerSection(keytab string) string {
	return fmt.Sprintf(`Server {
  com.sun.security.auth.module.Krb5LoginModule required
  useKeyTab=true
  keyTab="%s"
  storeKey=true
  useTicketCache=false
  principal="%s";
};
`, keytab, KDCServerPrincipal)
}
