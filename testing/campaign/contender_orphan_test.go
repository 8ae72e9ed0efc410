package campaign

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// contenderBinEnv names, in a test binary started by
// TestStoppedContenderDiesWithTheCampaign, the contender to start and
// abandon.
const contenderBinEnv = "CAMPAIGN_TEST_ABANDON_CONTENDER"

// A campaign process that dies (a panic, a test timeout) while its
// contender is stopped runs no deferred cleanup: the contender must die
// with it rather than stay stopped forever. The test starts a test binary
// that starts a contender, stops it and exits, then awaits the contender's
// end.
func TestStoppedContenderDiesWithTheCampaign(t *testing.T) {
	if bin := os.Getenv(contenderBinEnv); bin != "" {
		abandonStoppedContender(bin)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("the kernel kills a contender with its campaign only on Linux (Pdeathsig)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := buildContenders(ctx, MutexLock, "127.0.0.1:1", newPaths(MutexLock), 5*time.Second, 0, &recorder{}, newClock())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.close()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStoppedContenderDiesWithTheCampaign$")
	cmd.Env = append(os.Environ(), contenderBinEnv+"="+cs.bin)
	out, err := cmd.Output()
	pid, perr := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(string(out)), "PID "))
	if err != nil || perr != nil {
		t.Fatalf("the abandoning campaign: %v, output %q", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL) // the orphan this test made
			t.Fatalf("the contender %d outlived its campaign, state %s", pid, processState(pid))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// abandonStoppedContender starts a contender of bin (whose ensemble never
// answers, so it would wait for the lock for its whole bound), stops it,
// prints its pid and exits without cleaning up.
func abandonStoppedContender(bin string) {
	cs := &contenders{bin: bin, connect: "127.0.0.1:1", paths: newPaths(MutexLock), session: 5 * time.Second, kind: MutexLock, clock: newClock()}
	p, err := cs.start(0)
	if err == nil {
		err = p.cmd.Process.Signal(syscall.SIGSTOP)
	}
	for i := 0; err == nil && processState(p.cmd.Process.Pid) != "T"; i++ {
		if i == 500 {
			err = fmt.Errorf("contender not stopped: state %q", processState(p.cmd.Process.Pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(3)
	}
	fmt.Println("PID", p.cmd.Process.Pid)
	os.Exit(0)
}

// alive reports whether process pid exists and is no zombie.
func alive(pid int) bool {
	s := processState(pid)
	return s != "" && s != "Z" && s != "X"
}

// processState is the state letter of process pid in /proc (R, S, T, Z…),
// or "" when it is gone.
func processState(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}
