package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zkcurator/zkcurator/framework"
)

// envSASLPassword holds the password of --sasl-user when
// --sasl-password-file is not given.
const envSASLPassword = "ZK_SASL_PASSWORD"

// The SASL mechanisms --sasl-mechanism accepts, named as ZooKeeper's JAAS
// configuration names them.
const (
	mechDigest = "DIGEST-MD5"
	mechGSSAPI = "GSSAPI"
)

// saslFlags are the SASL flags every subcommand takes. The password comes
// from a file or the environment, never from the command line, and appears
// in no message.
type saslFlags struct {
	mechanism    string
	user         string
	passwordFile string
	principal    string
	keytab       string

	// sasl is what to authenticate with, nil for no SASL; check fills it.
	sasl *framework.SASL
}

// addSASLFlags registers the SASL flags on fs.
func addSASLFlags(fs *flag.FlagSet, s *saslFlags) {
	gssapi := "GSSAPI (Kerberos, with --principal and --keytab; krb5.conf from $KRB5_CONFIG or /etc/krb5.conf)"
	fs.StringVar(&s.mechanism, "sasl-mechanism", mechDigest, "the SASL `mechanism`: DIGEST-MD5 (with --sasl-user) or "+gssapi)
	fs.StringVar(&s.user, "sasl-user", "", "authenticate every connection by SASL DIGEST-MD5 as `USER` (a user of the server's JAAS Server section; its ACL identity is sasl:USER), with the password of --sasl-password-file or $"+envSASLPassword)
	fs.StringVar(&s.passwordFile, "sasl-password-file", "", "read the password of --sasl-user from `FILE`, its one line (default $"+envSASLPassword+"; there is no flag for the password itself)")
	fs.StringVar(&s.principal, "principal", "", "GSSAPI: the Kerberos `principal` to authenticate as, such as zkcli/host.example.com@EXAMPLE.COM")
	fs.StringVar(&s.keytab, "keytab", "", "GSSAPI: the keytab `FILE` holding the key of --principal")
}

// check reports SASL flags that cannot work, naming the flag (and the
// user, principal or file, never the password), and reads the password.
// It does no network I/O.
func (s *saslFlags) check() error {
	mech := strings.ToUpper(s.mechanism)
	var cfg framework.SASL
	switch mech {
	case mechDigest:
		if s.principal != "" || s.keytab != "" {
			return errors.New("--principal and --keytab are for --sasl-mechanism GSSAPI; DIGEST-MD5 authenticates as --sasl-user")
		}
		if s.user == "" {
			if s.passwordFile != "" {
				return errors.New("--sasl-password-file needs --sasl-user: the user the password belongs to")
			}
			return nil // no SASL
		}
		if err := checkSASLName("--sasl-user", s.user); err != nil {
			return err
		}
		pw, err := s.readPassword()
		if err != nil {
			return err
		}
		cfg = framework.SASLDigest(s.user, pw)
	case mechGSSAPI:
		if s.user != "" || s.passwordFile != "" {
			return errors.New("--sasl-user and --sasl-password-file are for --sasl-mechanism DIGEST-MD5; GSSAPI authenticates as --principal with --keytab")
		}
		if err := s.checkKerberos(); err != nil {
			return err
		}
		cfg = framework.SASLKerberos(s.principal, framework.SASLKeytab(s.keytab))
	default:
		return fmt.Errorf("bad --sasl-mechanism %q: want DIGEST-MD5 or GSSAPI", s.mechanism)
	}
	s.sasl = &cfg
	return nil
}

// readPassword returns the password of --sasl-user: the one line of
// --sasl-password-file, or else $ZK_SASL_PASSWORD. Its errors name the
// source, never the text.
func (s *saslFlags) readPassword() (string, error) {
	if s.passwordFile == "" {
		pw := os.Getenv(envSASLPassword)
		if pw == "" {
			return "", fmt.Errorf("--sasl-user %s needs a password: --sasl-password-file FILE or $%s", s.user, envSASLPassword)
		}
		return pw, checkPassword("$"+envSASLPassword, pw)
	}
	b, err := os.ReadFile(s.passwordFile)
	if err != nil {
		return "", fmt.Errorf("read --sasl-password-file: %v", err)
	}
	pw := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if pw == "" {
		return "", fmt.Errorf("bad --sasl-password-file %s: it is empty; want the password of --sasl-user %s on one line", s.passwordFile, s.user)
	}
	return pw, checkPassword("--sasl-password-file "+s.passwordFile, pw)
}

// checkPassword refuses a password that DIGEST-MD5 cannot carry or that
// is more than one line, naming its source.
func checkPassword(source, pw string) error {
	switch {
	case !utf8.ValidString(pw):
		return fmt.Errorf("bad %s: the password is not valid UTF-8", source)
	case strings.ContainsAny(pw, "\r\n"):
		return fmt.Errorf("bad %s: the password is more than one line", source)
	}
	return nil
}

// checkKerberos checks --principal and --keytab, which GSSAPI needs both.
func (s *saslFlags) checkKerberos() error {
	if s.principal == "" || s.keytab == "" {
		return errors.New("--sasl-mechanism GSSAPI needs --principal and --keytab")
	}
	if err := checkSASLName("--principal", s.principal); err != nil {
		return err
	}
	name, realm, hasRealm := strings.Cut(s.principal, "@")
	primary, instance, hasInstance := strings.Cut(name, "/")
	if primary == "" || (hasInstance && (instance == "" || strings.Contains(instance, "/"))) ||
		(hasRealm && (realm == "" || strings.Contains(realm, "@"))) {
		return fmt.Errorf("bad --principal %q: want primary[/instance][@REALM], such as zkcli/host.example.com@EXAMPLE.COM", s.principal)
	}
	f, err := os.Open(s.keytab)
	if err != nil {
		return fmt.Errorf("read --keytab: %v", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("bad --keytab %s: not a regular file", s.keytab)
	}
	return nil
}

// checkSASLName refuses an empty name, or one with spaces or control
// characters or that is not UTF-8, naming the flag and the value.
func checkSASLName(flag, name string) error {
	if name == "" || !utf8.ValidString(name) || strings.IndexFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) >= 0 {
		return fmt.Errorf("bad %s %q: want a name without spaces or control characters", flag, name)
	}
	return nil
}
