package main

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"unsafe"
)

// interactive reports whether stdin is a terminal.
func interactive() bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, os.Stdin.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

// foregroundGroup returns the foreground process group of the terminal on
// stdin, or -1 when stdin is not zkcurator's controlling terminal.
func foregroundGroup() int {
	var pgrp int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, os.Stdin.Fd(), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp))); errno != 0 {
		return -1
	}
	return int(pgrp)
}

// setForeground makes pgrp the terminal's foreground process group. A
// process outside the foreground group may do so only while it ignores
// SIGTTOU.
func setForeground(pgrp int) {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	p := int32(pgrp)
	_, _, _ = syscall.Syscall(syscall.SYS_IOCTL, os.Stdin.Fd(), syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&p)))
}

// childAttr is how the command is started. Off a terminal it gets a
// process group of its own, so that a signal reaches everything it started.
// When zkcurator is the terminal's foreground job, the command's group
// becomes the foreground group instead, as a shell runs a job: it reads
// the terminal, and the terminal's Ctrl-C and Ctrl-Z reach it alone, so that
// every SIGINT zkcurator itself gets (kill, docker kill) is passed on. A
// zkcurator in the background of a terminal keeps the command in its own
// group, so that the shell's fg brings both back.
func childAttr() *syscall.SysProcAttr {
	switch {
	case !interactive():
		return &syscall.SysProcAttr{Setpgid: true}
	case foregroundGroup() == syscall.Getpgrp():
		return &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0}
	}
	return &syscall.SysProcAttr{}
}

// terminalSentIt reports whether a SIGINT that zkcurator got has reached
// the command already: the command shares zkcurator's process group and
// that group is the terminal's foreground group, which the terminal's
// Ctrl-C goes to.
func terminalSentIt(cmd *exec.Cmd) bool {
	return !cmd.SysProcAttr.Setpgid && foregroundGroup() == syscall.Getpgrp()
}

// followStops, for a command that runs as the terminal's foreground job,
// suspends zkcurator when the command is stopped (Ctrl-Z), so that the
// shell sees the job stop, and on zkcurator's continuation gives the
// terminal back to the command and continues it. Without a job-control
// shell to continue zkcurator (it leads the session, as in 'docker run
// -it'), the command is continued at once, as the terminal's Ctrl-Z does
// nothing to such a session's jobs. It returns a function that ends this
// and takes the terminal back for zkcurator's group.
func followStops(cmd *exec.Cmd) (stop func()) {
	if !cmd.SysProcAttr.Foreground {
		return func() {}
	}
	pid := cmd.Process.Pid
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-chld:
			case <-quit:
				return
			}
			if !stopped(pid) {
				continue
			}
			if !underJobControl() {
				_ = syscall.Kill(-pid, syscall.SIGCONT)
				continue
			}
			setForeground(syscall.Getpgrp())
			_ = syscall.Kill(0, syscall.SIGSTOP) // the shell sees the job stop
			// Continued (fg, bg or kill -CONT): so is the command.
			if foregroundGroup() == syscall.Getpgrp() {
				setForeground(pid)
			}
			_ = syscall.Kill(-pid, syscall.SIGCONT)
		}
	}()
	return func() {
		signal.Stop(chld)
		close(quit)
		<-done
		if foregroundGroup() == pid {
			setForeground(syscall.Getpgrp())
		}
	}
}

// underJobControl reports whether a shell that can continue zkcurator's
// process group runs it: its parent is in the same session but another
// process group (zkcurator's group is not orphaned).
func underJobControl() bool {
	parent := syscall.Getppid()
	ppgrp, err := syscall.Getpgid(parent)
	if err != nil || ppgrp == syscall.Getpgrp() {
		return false
	}
	return getsid(parent) == getsid(0) && getsid(0) > 0
}

// getsid returns the session of process pid (0: this one), or -1.
func getsid(pid int) int {
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if errno != 0 {
		return -1
	}
	return int(sid)
}

// stopped reports, and consumes, a stop of process pid, leaving its exit,
// if any, for its Wait.
func stopped(pid int) bool {
	const pPID = 1     // P_PID
	var info [128]byte // siginfo_t
	_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), syscall.WSTOPPED|syscall.WNOHANG, 0, 0)
	if errno != 0 {
		return false
	}
	// si_pid, after si_signo, si_errno and si_code (three int32s) and,
	// on 64-bit platforms, padding to 8 bytes: zero when nothing stopped.
	off := 12
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	return *(*int32)(unsafe.Pointer(&info[off])) == int32(pid)
}
