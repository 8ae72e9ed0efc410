//go:build !unix

package zktest

import (
	"os"
	"syscall"
)

func childProcAttr() *syscall.SysProcAttr { return nil }

func killProcessGroup(p *os.Process) { _ = p.Kill() }
