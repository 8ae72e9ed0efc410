package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	verbose        bool
}

// newFlagSet returns c's flag set with the connection flags; parse errors are
// returned, not printed.
func newFlagSet(c *command, conn *connFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("zkcurator "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&conn.connect, "connect", os.Getenv("ZK_CONNECT"), "ZooKeeper ensemble, `host:port,...` (default $ZK_CONNECT)")
	conn.sessionTimeout = 30 * time.Second
	fs.Var(positiveDuration{&conn.sessionTimeout}, "session-timeout", "ZooKeeper session `timeout`: a crashed zkcurator's lock is freed this long after it died")
	conn.connectTimeout = 15 * time.Second
	fs.Var(positiveDuration{&conn.connectTimeout}, "connect-timeout", "give up (status 69) when no connection to ZooKeeper is made within this `duration`")
	fs.StringVar(&conn.namespace, "namespace", "", "prefix every path with /`ns`, as a Curator namespace")
	fs.Var(&conn.auth, "auth", "add authentication, `scheme:credentials` such as digest:user:password (repeatable)")
	fs.BoolVar(&conn.verbose, "verbose", false, "log connection and lock state changes to stderr")
	return fs
}

// check reports connection flags that cannot work.
func (c *connFlags) check() error {
	if strings.TrimSpace(c.connect) == "" {
		return errors.New("no ZooKeeper ensemble: set --connect or ZK_CONNECT")
	}
	for _, s := range strings.Split(c.connect, ",") {
		if s = strings.TrimSpace(s); s == "" || strings.ContainsAny(s, " \t/") {
			return fmt.Errorf("bad --connect %q: want host:port,host:port", c.connect)
		}
	}
	if c.namespace != "" {
		if err := framework.ValidatePath("/" + c.namespace); err != nil || strings.HasPrefix(c.namespace, "/") {
			return fmt.Errorf("bad --namespace %q: want a relative path such as app or app/prod", c.namespace)
		}
	}
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
	if f.n == nil {
		return ""
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

// authFlags collects --auth scheme:credentials pairs.
type authFlags []authFlag

type authFlag struct{ scheme, credentials string }

func (a *authFlags) String() string { return "" }

func (a *authFlags) Set(s string) error {
	scheme, cred, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || cred == "" {
		return errors.New("want scheme:credentials, such as digest:user:password")
	}
	*a = append(*a, authFlag{scheme, cred})
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
