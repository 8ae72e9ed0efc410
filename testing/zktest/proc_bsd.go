//go:build unix && !linux

package zktest

import "syscall"

// childProcAttr puts the JVM in its own process group, so that it can be
// killed as a whole.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
