//go:build !linux

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// interactive reports whether stdin is a terminal: a character device other
// than /dev/null.
func interactive() bool {
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// childAttr is how the command is started: in a process group of its own
// off a terminal, so that a signal reaches everything it started; on a
// terminal in zkcurator's group, to keep reading it.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: !interactive()}
}

// terminalSentIt reports whether a SIGINT that zkcurator got is taken as the
// terminal's Ctrl-C, which reached the command in zkcurator's group too.
func terminalSentIt(cmd *exec.Cmd) bool { return !cmd.SysProcAttr.Setpgid }

// followStops does nothing here: the command shares zkcurator's group.
func followStops(*exec.Cmd) (stop func()) { return func() {} }
