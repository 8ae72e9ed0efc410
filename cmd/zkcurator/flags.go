package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// connFlags are the flags every subcommand takes: where the ensemble is and
// how to talk to it.
type connFlags struct {
	connect        string
	sessionTimeout time.Duration
	connectTimeout time.Duration
	namespace      string
	auth           authFlags
	authFile       string
	verbose        bool
	security       securityFlags
	sasl           saslFlags

	// auths is the authentication to send, from --auth, --auth-file or
	// ZK_AUTH; check fills it.
	auths []authFlag
}

// newFlagSet returns c's flag set with the connection flags; parse errors are
// returned, not printed.
func newFlagSet(c *command, conn *connFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("zkcurator "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&conn.connect, "connect", os.Getenv("ZK_CONNECT"), "ZooKeeper ensemble, `host:port,...`, optionally ending in a /chroot that exists (default $ZK_CONNECT)")
	conn.sessionTimeout = 30 * time.Second
	fs.Var(sessionTimeout{&conn.sessionTimeout}, "session-timeout", "ZooKeeper session `timeout` (1ms to 596h): a crashed zkcurator's lock is freed this long after it died")
	conn.connectTimeout = 15 * time.Second
	fs.Var(positiveDuration{&conn.connectTimeout}, "connect-timeout", "give up (status 69) when no connection to ZooKeeper is made within this `duration`")
	fs.StringVar(&conn.namespace, "namespace", "", "prefix every path with /`ns`, as a Curator namespace")
	fs.StringVar(&conn.authFile, "auth-file", "", "add the authentication in `FILE`, one scheme:credentials a line (default $ZK_AUTH, in the same format)")
	fs.Var(&conn.auth, "auth", "add authentication, `scheme:credentials` such as digest:user:password (repeatable); other local users can read it in the process list, so prefer --auth-file or $ZK_AUTH")
	addSecurityFlags(fs, &conn.security)
	addSASLFlags(fs, &conn.sasl)
	fs.BoolVar(&conn.verbose, "verbose", false, "log connection attempts and their failures, and lock state changes, to stderr")
	return fs
}

// check reports connection flags that cannot work, naming the value, and
// reads the authentication to send. It does no network I/O.
func (c *connFlags) check() error {
	if err := checkConnect(c.connect); err != nil {
		return err
	}
	if c.namespace != "" {
		if err := framework.ValidatePath("/" + c.namespace); err != nil || strings.HasPrefix(c.namespace, "/") {
			return fmt.Errorf("bad --namespace %q: want a relative path such as app or app/prod", c.namespace)
		}
	}
	auths, err := c.readAuth()
	if err != nil {
		return err
	}
	c.auths = auths
	if err := c.sasl.check(); err != nil {
		return err
	}
	return c.security.check(len(auths) > 0 || c.sasl.sasl != nil)
}

// checkConnect reports a connect string that names no server or a server
// that is not host:port, with a port from 1 to 65535 (a host alone gets
// ZooKeeper's 2181), or whose chroot suffix ("host:2181/app", as the Java
// client takes it) is not a valid path. The chroot must exist on the
// server; the framework reports it when it does not.
func checkConnect(connect string) error {
	if strings.TrimSpace(connect) == "" {
		return errors.New("no ZooKeeper ensemble: set --connect or ZK_CONNECT")
	}
	servers := connect
	if i := strings.IndexByte(connect, '/'); i >= 0 {
		servers = connect[:i]
		if chroot := connect[i:]; chroot != "/" && framework.ValidatePath(chroot) != nil {
			return fmt.Errorf("bad --connect %q: chroot %q is not a valid ZooKeeper path", connect, chroot)
		}
	}
	for _, server := range strings.Split(servers, ",") {
		if err := checkServer(strings.TrimSpace(server)); err != nil {
			return fmt.Errorf("bad --connect %q: %v", connect, err)
		}
	}
	return nil
}

func checkServer(s string) error {
	switch {
	case s == "":
		return errors.New("an empty server; want host:port,host:port")
	case strings.ContainsAny(s, " \t"):
		return fmt.Errorf("server %q: want host:port", s)
	case !strings.Contains(s, ":"):
		return nil // a host alone: port 2181
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("server %q: want host:port ([host]:port for IPv6)", s)
	}
	if host == "" {
		return fmt.Errorf("server %q has an empty host", s)
	}
	n, err := strconv.Atoi(port)
	switch {
	case err != nil && strings.Trim(port, "0123456789") != "":
		return fmt.Errorf("server %q: port %q is not a number", s, port)
	case err != nil || n < 1 || n > 65535:
		return fmt.Errorf("server %q: port %s is outside 1..65535", s, port)
	}
	return nil
}

// maxSessionTimeout is the longest session timeout ZooKeeper's protocol
// carries: a signed 32-bit count of milliseconds.
const maxSessionTimeout = (1<<31 - 1) * time.Millisecond

// sessionTimeout is the --session-timeout flag: 1ms to maxSessionTimeout.
type sessionTimeout struct{ d *time.Duration }

func (f sessionTimeout) String() string { return positiveDuration(f).String() }

func (f sessionTimeout) Set(s string) error {
	d, err := parseDuration(s)
	switch {
	case err != nil:
		return err
	case d < time.Millisecond:
		return errors.New("must be at least 1ms")
	case d > maxSessionTimeout:
		return fmt.Errorf("must be below %v (2^31 ms)", maxSessionTimeout+time.Millisecond)
	}
	*f.d = d
	return nil
}

// positiveDuration is a duration flag that must be above zero.
type positiveDuration struct{ d *time.Duration }

func (f positiveDuration) String() string {
	if f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f positiveDuration) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	if d <= 0 {
		return errors.New("must be above zero")
	}
	*f.d = d
	return nil
}

// optionalDuration is a duration flag that may be zero and remembers whether
// it was given.
type optionalDuration struct {
	d   time.Duration
	set bool
}

func (f *optionalDuration) String() string {
	if f == nil || !f.set {
		return ""
	}
	return f.d.String()
}

func (f *optionalDuration) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	if d < 0 {
		return errors.New("must not be negative")
	}
	f.d, f.set = d, true
	return nil
}

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("want a duration such as 30s, 5m or 1h30m")
	}
	return d, nil
}

// positiveInt is an int flag that must be at least 1.
type positiveInt struct{ n *int }

func (f positiveInt) String() string {
	if f.n == nil || *f.n == 0 {
		return "" // unset: PrintDefaults shows no default
	}
	return strconv.Itoa(*f.n)
}

func (f positiveInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("want a whole number of at least 1")
	}
	*f.n = n
	return nil
}

// checkPath reports a ZooKeeper path that the server would reject, naming it.
func checkPath(what, p string) error {
	if err := framework.ValidatePath(p); err != nil {
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("bad %s %q: a ZooKeeper path starts with /", what, p)
		}
		return fmt.Errorf("bad %s %q: not a valid ZooKeeper path", what, p)
	}
	if p == "/" {
		return fmt.Errorf("bad %s %q: the root cannot be used", what, p)
	}
	return nil
}
