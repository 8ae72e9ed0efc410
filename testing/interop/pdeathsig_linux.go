package interop

import "syscall"

// dieWithParent makes the kernel kill a child process when the thread that
// started it dies, which for a Go program means when the process dies (the
// runtime keeps its threads unless a goroutine exits while locked to one,
// which this package never does). So a crashed test binary leaves no JVM
// behind; closing stdin covers the orderly cases on every platform.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
