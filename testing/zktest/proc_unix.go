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
