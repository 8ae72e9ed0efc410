package zktest

import "syscall"

// childProcAttr puts the JVM in its own process group, so that it can be
// killed as a whole, and has the kernel kill it when the thread that started
// it ends. Go keeps its threads until the program ends (unless a goroutine
// locked to one exits), so a test binary that is aborted leaves no server
// behind.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
