package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"
)

// Environment variables the command gets.
const (
	envLockNode     = "ZKCURATOR_LOCK_NODE"
	envFencingToken = "ZKCURATOR_FENCING_TOKEN"
)

// newChild prepares args[0] to run with args[1:], with zkcurator's stdin,
// stdout and stderr. A command that cannot be found is reported now, before
// any lock is taken.
func newChild(args []string) (*exec.Cmd, error) {
	cmd := exec.Command(args[0], args[1:]...)
	err := cmd.Err
	if err == nil {
		// A path (exec.Command looks up only bare names): is it there and
		// executable?
		_, err = exec.LookPath(cmd.Path)
	}
	if err != nil {
		return nil, cannotStart(args[0], err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = childAttr()
	return cmd, nil
}

// cannotStart is the error for a command that cannot be started, with a
// shell's status: 127 when it is not found, 126 when it cannot be run.
func cannotStart(name string, err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return fail(exitCommandNotFound, "command %q not found", name)
	}
	var e *exec.Error
	if errors.As(err, &e) {
		err = e.Err
	}
	return fail(exitCannotRun, "command %q cannot be run: %v", name, err)
}

// hold is what the command runs under.
type hold struct {
	what     string          // "lock /jobs/backup", for messages
	node     string          // the lock or lease node
	token    int64           // its fencing token (czxid), 0 when it could not be read
	tokenErr error           // why the token could not be read, if known
	lost     <-chan struct{} // closed when holding is no longer certain
	revoked  <-chan struct{} // closed on a revocation request, or nil
	env      []string        // more of the command's environment, NAME=value
}

// usable reports why the command must not start under h: h was lost or
// revoked already, or has no fencing token to give the command.
func (h hold) usable() error {
	select {
	case <-h.lost:
		return fail(exitLost, "%s was lost before the command started; the command did not run", h.what)
	case <-h.revoked:
		return fail(exitLost, "%s was revoked before the command started; the command did not run", h.what)
	default:
	}
	if h.token <= 0 {
		why := "it could not be read"
		if h.tokenErr != nil {
			why = h.tokenErr.Error()
		}
		return fail(exitUnavailable, "%s acquired without a fencing token (%s); the command did not run", h.what, why)
	}
	return nil
}

// runChild runs cmd while h is held and returns its exit status. It does
// not start cmd under a hold that is already lost or revoked (an exitLost
// error). A signal from sigs is passed on to the command. When h is lost
// (or revoked) the command gets SIGTERM, and SIGKILL after grace; runChild
// then returns an exitLost error once the command has exited.
func runChild(cmd *exec.Cmd, h hold, grace time.Duration, sigs <-chan os.Signal, log *zap.Logger) error {
	if err := h.usable(); err != nil {
		return err
	}
	cmd.Env = append(os.Environ(),
		envLockNode+"="+h.node,
		envFencingToken+"="+strconv.FormatInt(h.token, 10),
	)
	cmd.Env = append(cmd.Env, h.env...)
	if err := cmd.Start(); err != nil {
		return cannotStart(cmd.Path, err)
	}
	log.Info("command started", zap.Int("pid", cmd.Process.Pid))
	defer followStops(cmd)()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	lost, revoked := h.lost, h.revoked
	var stopping string // why the command is being stopped
	var kill <-chan time.Time
	for {
		select {
		case err := <-exited:
			status := childStatus(cmd, err)
			log.Info("command exited", zap.Int("status", status))
			if stopping != "" {
				return fail(exitLost, "%s %s while the command ran; the command was stopped (its status: %d)", h.what, stopping, status)
			}
			return exitStatus(status)
		case <-lost:
			stopping, lost, revoked = "was lost", nil, nil
		case <-revoked:
			stopping, lost, revoked = "was revoked", nil, nil
		case sig := <-sigs:
			if sig == os.Interrupt && terminalSentIt(cmd) {
				continue // the terminal sent it to the command as well
			}
			log.Info("passing a signal on to the command", zap.Stringer("signal", sig))
			signalChild(cmd, sig.(syscall.Signal))
			continue
		case <-kill:
			log.Info("the command outlived --grace; killing it", zap.Duration("grace", grace))
			signalChild(cmd, syscall.SIGKILL)
			kill = nil
			continue
		}
		// The hold is gone: stop the command.
		log.Info("the "+h.what+" "+stopping+"; stopping the command", zap.Duration("grace", grace))
		signalChild(cmd, syscall.SIGTERM)
		kill = time.After(grace)
	}
}

// signalChild sends sig to the command's process group, or to the command
// alone when it shares zkcurator's group.
func signalChild(cmd *exec.Cmd, sig syscall.Signal) {
	pid := cmd.Process.Pid
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid {
		pid = -pid
	}
	_ = syscall.Kill(pid, sig)
}

// childStatus is the command's exit status, 128+N when signal N ended it.
func childStatus(cmd *exec.Cmd, err error) int {
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	if err != nil {
		return 1
	}
	return 0
}

// signalStatus is the status of a process ended by sig, as a shell reports it.
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// signalName names a signal for messages, "SIGTERM".
func signalName(sig os.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return fmt.Sprint(sig)
}
