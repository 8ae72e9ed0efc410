package main

import (
	"regexp"
	"strings"
	"testing"
)

// flagLine matches a flag's first line in a usage text: "  -name ...".
var flagLine = regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`)

// usageFlags returns the flags a usage text lists.
func usageFlags(text string) []string {
	var names []string
	for _, m := range flagLine.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestHelpCommandListsEveryFlag: 'zkcurator help CMD' lists every flag that
// 'zkcurator CMD -h' lists, the subcommand's own (--wait, --leases, --id,
// --address, ...) as well as the connection flags.
func TestHelpCommandListsEveryFlag(t *testing.T) {
	own := map[string][]string{
		"lock":         {"wait", "grace", "data", "read", "write", "unfair", "ttl", "revocable"},
		"semaphore":    {"wait", "grace", "data", "leases"},
		"elect":        {"wait", "grace", "id"},
		"register":     {"wait", "grace", "address", "port", "ssl-port", "id", "payload", "payload-class", "uri-spec", "base"},
		"discover":     {"base"},
		"participants": {"connect"},
		"revoke":       {"connect"},
		"queue":        {"id", "priority", "delay", "count", "wait", "lock-path", "raw", "type", "connect", "acl", "tls-ca"},
		"watch":        {"recursive", "data", "connect", "tls-ca", "sasl-user", "sasl-password-file", "sasl-mechanism", "principal", "keytab"},
	}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, c.name, "-h")
			if code := p.wait(t); code != 0 {
				t.Fatalf("zkcurator %s -h exited with %d", c.name, code)
			}
			flags := usageFlags(p.stdout.String())
			for _, want := range own[c.name] {
				if !strings.Contains(" "+strings.Join(flags, " ")+" ", " "+want+" ") {
					t.Errorf("zkcurator %s -h lists no -%s:\n%s", c.name, want, p.stdout.String())
				}
			}
			h := start(t, "help", c.name)
			if code := h.wait(t); code != 0 {
				t.Fatalf("zkcurator help %s exited with %d", c.name, code)
			}
			listed := map[string]bool{}
			for _, f := range usageFlags(h.stdout.String()) {
				listed[f] = true
			}
			for _, f := range flags {
				if !listed[f] {
					t.Errorf("zkcurator help %s lists no -%s, which 'zkcurator %s -h' lists", c.name, f, c.name)
				}
			}
		})
	}
}

// TestTopLevelHelpNamesSecurityFlags: 'zkcurator -h' names the TLS, SASL
// and ACL flags every subcommand takes.
func TestTopLevelHelpNamesSecurityFlags(t *testing.T) {
	p := start(t, "-h")
	if code := p.wait(t); code != 0 {
		t.Fatalf("zkcurator -h exited with %d", code)
	}
	for _, f := range []string{"--tls-ca", "--tls-cert", "--tls-key", "--tls-server-name", "--acl",
		"--sasl-user", "--sasl-password-file", "$ZK_SASL_PASSWORD", "--sasl-mechanism", "--principal", "--keytab"} {
		if !strings.Contains(p.stdout.String(), f) {
			t.Errorf("zkcurator -h does not name %s:\n%s", f, p.stdout.String())
		}
	}
}
