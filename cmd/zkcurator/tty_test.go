//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY returns the two ends of a new pseudo-terminal; the test's end
// closes them.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlock the pty: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("pty number: %v", errno)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// trapScript, run by sh with $0 a file, appends "start", then "int" on each
// SIGINT, "cont" on each SIGCONT, and on SIGTERM "term" before it exits
// with status 3.
const trapScript = `echo start >> "$0"; trap 'echo int >> "$0"' INT; trap 'echo cont >> "$0"' CONT; trap 'echo term >> "$0"; exit 3' TERM; while :; do sleep 0.05; done`

// TestSignalsOnATerminal runs zkcurator as the foreground job of a terminal
// (as in 'docker run -it', where it is the session leader): a SIGINT sent to
// zkcurator's pid (kill, 'docker kill -s INT') reaches the command, the
// terminal's Ctrl-C reaches it once, not twice, and its Ctrl-Z, with no
// job-control shell to continue zkcurator, leaves the command running.
func TestSignalsOnATerminal(t *testing.T) {
	srv := sharedServer(t)
	master, slave := openPTY(t)
	file := filepath.Join(t.TempDir(), "log")
	cmd := exec.Command(binary, append(append([]string{"lock"}, connArgs(srv.ConnectString())...), testPath(t), "--", "sh", "-c", trapScript, file)...)
	cmd.Env = append(os.Environ(), "ZK_AUTH=", "ZK_TLS_CA=", "ZK_TLS_CERT=", "ZK_TLS_KEY=")
	var stderr strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &stderr, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			killTree(cmd.Process.Pid) // the command may be in a foreground group of its own
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	count := func(line string) int {
		n := 0
		for _, l := range readLines(t, file) {
			if l == line {
				n++
			}
		}
		return n
	}
	eventually(t, "the command to start", func() bool { return count("start") == 1 })

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the SIGINT sent to zkcurator to reach the command", func() bool { return count("int") == 1 })

	if _, err := master.Write([]byte{3}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	eventually(t, "the terminal's Ctrl-C to reach the command", func() bool { return count("int") >= 2 })
	if _, err := master.Write([]byte{26}); err != nil { // Ctrl-Z
		t.Fatal(err)
	}
	eventually(t, "the command stopped by Ctrl-Z to be continued", func() bool { return count("cont") == 1 })
	// A second copy, passed on by zkcurator, would come before this SIGTERM.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	eventually(t, "zkcurator to exit", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("zkcurator exited with %d, want the command's 3; stderr: %s", code, stderr.String())
	}
	want := []string{"start", "int", "int", "cont", "term"}
	if got := readLines(t, file); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the command logged %q, want %q", got, want)
	}
}
