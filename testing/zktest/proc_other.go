//go:build !unix

package zktest

import (
	"errors"
	"os"
	"syscall"
)

func childProcAttr() *syscall.SysProcAttr { return nil }

func killProcessGroup(p *os.Process) { _ = p.Kill() }

func pauseProcessGroup(*os.Process, bool) error {
	return errors.New("pausing a process needs a unix system")
}
