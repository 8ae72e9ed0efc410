package main

import (
	"errors"
	"fmt"
)

// Exit statuses of zkcurator itself. When the command ran and the lock or
// lease stayed held, zkcurator exits with the command's own status instead
// (128+N when a signal N killed it), as flock(1) does.
const (
	exitOK = 0
	// exitNotFound: the PATH of participants or the NODE of revoke does not
	// exist, or has no contenders; no one holds the lock path given to
	// revoke, or its holder does not listen for revocation.
	exitNotFound = 1
	// exitUsage: bad flag, connect string, path, duration or lease count, no
	// command, or a revoke NODE that is not a contender.
	exitUsage = 64
	// exitUnavailable: no session with ZooKeeper within --connect-timeout, or
	// ZooKeeper failed a request (sysexits' EX_UNAVAILABLE).
	exitUnavailable = 69
	// exitNoPermission: ZooKeeper refused a request for want of
	// authentication or permission (an ACL), or refused the SASL
	// credentials (sysexits' EX_NOPERM).
	exitNoPermission = 77
	// exitInternal: an error zkcurator did not expect, such as a failed write
	// of its output (sysexits' EX_SOFTWARE).
	exitInternal = 70
	// exitTimeout: --wait elapsed before the lock or lease was granted
	// (sysexits' EX_TEMPFAIL: try again later).
	exitTimeout = 75
	// exitLost: the lock or lease was lost (or, with --revocable, revoked)
	// before or while the command ran; the command did not start, or was
	// stopped.
	exitLost = 79
	// exitCannotRun: the command was found but could not be started.
	exitCannotRun = 126
	// exitCommandNotFound: the command was not found.
	exitCommandNotFound = 127
)

// statusTable is the exit status table printed by 'zkcurator help
// exit-codes'; docs/cli.md keeps the same rows.
const statusTable = `Exit status:
  0-255  the command's own status when it ran and the lock stayed held
         (128+N when signal N killed it; 130 and 143 when zkcurator was
         interrupted by SIGINT or SIGTERM while it waited)
  1      participants, revoke: no such node, or no contenders at it
         (revoke: or no one holds it, or its holder is a zkcurator not
         started with --revocable)
  64     usage: bad flag, connect string, path ("/" included), duration or
         --leases, no command, or a revoke NODE that is not a contender
  69     cannot reach ZooKeeper within --connect-timeout (or --wait, when
         shorter, but at least 1s), or it failed a request
  70     an unexpected error, such as a failed write of zkcurator's output
  75     --wait elapsed before the lock or lease was granted (queue take:
         before --count items were taken; those taken are printed)
  77     ZooKeeper refused a request for want of authentication or
         permission (the node's ACL): the message names the node; or
         it refused the SASL credentials of --sasl-user
  79     the lock or lease was lost (or revoked, with --revocable): before
         the command started (it did not run), or while it ran (it got
         SIGTERM, and SIGKILL after --grace)
  126    the command was found but could not be run (not executable)
  127    the command was not found`

// exitCodesHelp is how -h points to the table.
const exitCodesHelp = "Exit statuses: run 'zkcurator help exit-codes'."

// exitError is an error that ends zkcurator with a given status; its message
// is printed on one line.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// fail returns an error that makes zkcurator exit with code after printing
// the formatted message.
func fail(code int, format string, args ...any) error {
	return &exitError{code: code, msg: fmt.Sprintf(format, args...)}
}

// exitCode is the status for err: its exitError's code, or exitInternal.
func exitCode(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitInternal
}

// exitStatus is an error that carries the command's status, which zkcurator
// passes on without printing anything.
type exitStatus int

func (s exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }
