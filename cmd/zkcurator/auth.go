package main

import (
	"fmt"
	"os"
	"strings"
)

// envAuth holds authentication, one scheme:credentials a line, used when
// neither --auth nor --auth-file is given.
const envAuth = "ZK_AUTH"

// authFlag is one scheme:credentials pair. Its credentials never appear in
// a message, a log line or an error.
type authFlag struct{ scheme, credentials string }

// authFlags collects --auth scheme:credentials pairs. A malformed value is
// remembered, not returned, so that the flag package does not print it in
// its error: check reports it by position only.
type authFlags struct {
	list []authFlag
	bad  int // the position (from 1) of the first malformed --auth, or 0
}

func (a *authFlags) String() string { return "" }

func (a *authFlags) Set(s string) error {
	p, ok := parseAuth(s)
	if !ok && a.bad == 0 {
		a.bad = len(a.list) + 1
	}
	a.list = append(a.list, p)
	return nil
}

// parseAuth splits scheme:credentials; both parts must be non-empty.
func parseAuth(s string) (authFlag, bool) {
	scheme, cred, ok := strings.Cut(s, ":")
	return authFlag{scheme, cred}, ok && scheme != "" && cred != "" && !strings.ContainsAny(scheme, " \t")
}

// readAuth returns the authentication to send: --auth and --auth-file
// together, or else ZK_AUTH. Its errors name the source and line, never
// the text.
func (c *connFlags) readAuth() ([]authFlag, error) {
	if c.auth.bad != 0 {
		return nil, fmt.Errorf("bad --auth (number %d of %d): want scheme:credentials, such as digest:user:password", c.auth.bad, len(c.auth.list))
	}
	auths := append([]authFlag(nil), c.auth.list...)
	if c.authFile != "" {
		b, err := os.ReadFile(c.authFile)
		if err != nil {
			return nil, fmt.Errorf("read --auth-file: %v", err)
		}
		more, err := parseAuthLines("--auth-file "+c.authFile, string(b))
		if err != nil {
			return nil, err
		}
		auths = append(auths, more...)
	}
	if len(auths) == 0 && c.authFile == "" {
		return parseAuthLines("$"+envAuth, os.Getenv(envAuth))
	}
	return auths, nil
}

// parseAuthLines reads scheme:credentials lines; blank lines and lines
// starting with # are skipped.
func parseAuthLines(source, text string) ([]authFlag, error) {
	var auths []authFlag
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, ok := parseAuth(line)
		if !ok {
			return nil, fmt.Errorf("bad %s, line %d: want scheme:credentials, such as digest:user:password", source, i+1)
		}
		auths = append(auths, a)
	}
	return auths, nil
}
