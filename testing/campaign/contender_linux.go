package campaign

import "syscall"

// dieWithCampaign makes the kernel kill a contender when the thread that
// started it dies, which for a Go program means when the process dies (the
// runtime keeps its threads unless a goroutine exits while locked to one,
// which this package never does): a test binary that panics or times out
// while a contender is stopped leaves no stopped process behind. SIGKILL
// ends a stopped process too.
func dieWithCampaign() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
