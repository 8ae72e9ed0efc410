package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one subcommand. Its file defines it; commands lists it.
type command struct {
	name     string
	synopsis string // what follows the name in the usage line
	summary  string // one line for the command list
	help     string // what it does, printed by -h

	// setup adds the command's own flags to fs and returns the function that
	// runs the command once the flags are parsed, printing its results to
	// out. args are the positional arguments (as many as synopsis names) and
	// then the command to run, if the subcommand takes one.
	setup func(fs *flag.FlagSet, c *connFlags) func(ctx context.Context, out io.Writer, args []string) error
	// positional is the number of arguments before an optional command.
	positional int
	// optional is how many of the last positional arguments may be absent.
	optional int
	// runsCommand is true when a command to run must follow the positional
	// arguments.
	runsCommand bool
}

// commands lists the subcommands in the order -h shows them.
var commands = []*command{
	lockCommand,
	semaphoreCommand,
	electCommand,
	participantsCommand,
	discoverCommand,
	registerCommand,
	revokeCommand,
	queueCommand,
	watchCommand,
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run runs zkcurator with args and returns its exit status; errors are
// printed on one line to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout)
	var status exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &status):
		return int(status)
	}
	fmt.Fprintf(stderr, "zkcurator: %s\n", oneLine(err.Error()))
	return exitCode(err)
}

func dispatch(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fail(exitUsage, "no subcommand (run 'zkcurator -h')")
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && name == "help" {
			if args[1] == "exit-codes" {
				fmt.Fprintln(stdout, statusTable)
				return nil
			}
			if c := lookup(args[1]); c != nil {
				fs, _ := commandFlags(c, new(connFlags))
				printCommandUsage(stdout, c, fs)
				return nil
			}
			return fail(exitUsage, "unknown subcommand %q (run 'zkcurator -h')", args[1])
		}
		printUsage(stdout)
		return nil
	}
	c := lookup(name)
	if c == nil {
		return fail(exitUsage, "unknown subcommand %q (run 'zkcurator -h')", name)
	}
	return runCommand(ctx, c, args[1:], stdout)
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// runCommand parses a subcommand's flags and arguments and runs it.
func runCommand(ctx context.Context, c *command, args []string, stdout io.Writer) error {
	conn := new(connFlags)
	fs, body := commandFlags(c, conn)
	pos, rest, err := parseArgs(fs, args, c.positional)
	if errors.Is(err, flag.ErrHelp) {
		printCommandUsage(stdout, c, fs)
		return nil
	}
	if err != nil {
		return fail(exitUsage, "%s: %v (run 'zkcurator %s -h')", c.name, err, c.name)
	}
	if len(pos) < c.positional-c.optional {
		return fail(exitUsage, "%s: missing %s (run 'zkcurator %s -h')", c.name, strings.Fields(c.synopsis)[len(pos)+1], c.name)
	}
	switch {
	case c.runsCommand && len(rest) == 0:
		return fail(exitUsage, "%s: missing the command to run after %s (run 'zkcurator %s -h')", c.name, pos[len(pos)-1], c.name)
	case !c.runsCommand && len(rest) > 0:
		return fail(exitUsage, "%s: unexpected argument %q (run 'zkcurator %s -h')", c.name, rest[0], c.name)
	}
	if err := conn.check(); err != nil {
		return fail(exitUsage, "%s: %v", c.name, err)
	}
	return body(ctx, stdout, append(pos, rest...))
}

// commandFlags returns c's flag set, the connection flags and its own, and
// the function that runs c once it is parsed. '<cmd> -h' and 'help <cmd>'
// both print this one set.
func commandFlags(c *command, conn *connFlags) (*flag.FlagSet, func(context.Context, io.Writer, []string) error) {
	fs := newFlagSet(c, conn)
	return fs, c.setup(fs, conn)
}

// parseArgs parses flags before, between and after n positional arguments and
// returns those and what follows them: the command to run, which may be
// preceded by "--" and is never parsed for flags.
func parseArgs(fs *flag.FlagSet, args []string, n int) (pos, rest []string, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		consumedDashes := len(fs.Args()) < len(args) && len(args) > 0 && args[len(args)-len(fs.Args())-1] == "--"
		args = fs.Args()
		if len(pos) == n || len(args) == 0 {
			return pos, args, nil
		}
		if consumedDashes {
			// "--" before all positional arguments: no more flags at all.
			for len(pos) < n && len(args) > 0 {
				pos, args = append(pos, args[0]), args[1:]
			}
			return pos, args, nil
		}
		pos, args = append(pos, args[0]), args[1:]
		if len(pos) == n && len(args) > 0 && args[0] == "--" {
			return pos, args[1:], nil
		}
	}
}

// oneLine keeps an error message on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, `zkcurator runs a command under a ZooKeeper lock, semaphore lease or
leadership that Apache Curator's recipes on the same path respect,
inspects those locks, feeds and drains Curator's distributed queues, and
watches nodes change.

Usage:
  zkcurator SUBCOMMAND [flags] ARGS...

Subcommands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-13s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `
Run 'zkcurator SUBCOMMAND -h' or 'zkcurator help SUBCOMMAND' for its
flags. Every subcommand takes --connect (default $ZK_CONNECT),
--session-timeout, --connect-timeout, --namespace, --auth-file FILE
(default $ZK_AUTH), --auth, the SASL flags --sasl-user,
--sasl-password-file (default $ZK_SASL_PASSWORD), --sasl-mechanism,
--principal and --keytab, the TLS flags --tls-ca, --tls-cert, --tls-key
(default $ZK_TLS_CA, $ZK_TLS_CERT, $ZK_TLS_KEY) and --tls-server-name, the
ACL flag --acl open|creator|x509 (for the nodes it creates), and --verbose.

%s
`, exitCodesHelp)
}

func printCommandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage:\n  zkcurator %s %s\n\n%s\n\nFlags:\n", c.name, c.synopsis, strings.TrimSpace(c.help))
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	fmt.Fprintf(w, "\n%s\n", exitCodesHelp)
}
