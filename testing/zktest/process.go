package zktest

import (
	"fmt"
	"io"
	"os/exec"
	"time"
)

// process is one running ZooKeeper JVM.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited and been reaped
	err  error         // how it exited; read only after done is closed
}

// startProcess starts java with args in its own process group, with stdout
// and stderr going to out. The child is killed if this process dies first.
func startProcess(java string, args []string, dir string, out io.Writer) (*process, error) {
	cmd := exec.Command(java, args...)
	cmd.Dir = dir
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = childProcAttr()
	// The JVM is the only writer of its pipes; do not wait long for them
	// after it is gone.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("zktest: start %s: %w", java, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// pid is the operating system's id of the JVM.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill ends the whole process group at once and waits until it is reaped.
func (p *process) kill() {
	killProcessGroup(p.cmd.Process)
	<-p.done
}
