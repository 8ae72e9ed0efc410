//go:build unix

package zktest

import (
	"os"
	"syscall"
)

// killProcessGroup kills the JVM's whole process group (see childProcAttr).
func killProcessGroup(p *os.Process) {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}

// pauseProcessGroup stops (SIGSTOP) or continues (SIGCONT) the JVM's
// whole process group.
func pauseProcessGroup(p *os.Process, stop bool) error {
	sig := syscall.SIGCONT
	if stop {
		sig = syscall.SIGSTOP
	}
	return syscall.Kill(-p.Pid, sig)
}
