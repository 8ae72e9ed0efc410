// Command cli shows the command-line tool cmd/zkcurator: two cron jobs
// started at once under 'zkcurator lock' run one after the other. It builds
// the tool with the go command, so run it from the repository. It exits with
// status 1 if the jobs overlapped.
//
//	go run ./examples/cli
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run for the command line: zkcurator lock --connect ...
// --namespace ... PATH -- CMD, which holds an InterProcessMutex on PATH
// while CMD runs and hands CMD the fencing token in ZKCURATOR_FENCING_TOKEN.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

func main() {
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(run)
}

// run builds the command-line tool, cmd/zkcurator, starts two "cron jobs"
// at once under zkcurator lock on one path and shows that their commands
// ran one after the other, each with a larger fencing token. It fails with
// errInvariant if the commands overlapped.
func run(ctx context.Context, connect string, out io.Writer) error {
	st := newStage(connect, out, "cli")
	defer st.Close()
	p := st.Printer
	p.Title("cli: two cron jobs start at once under 'zkcurator lock /jobs/report -- report.sh'")

	dir, err := os.MkdirTemp("", "zkcurator-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := build(ctx, dir, "github.com/zkcurator/zkcurator/cmd/zkcurator")
	if err != nil {
		return err
	}
	p.Say("built zkcurator from this repository (go build ./cmd/zkcurator; elsewhere: go install github.com/zkcurator/zkcurator/cmd/zkcurator@latest)")

	log := filepath.Join(dir, "log")
	script := `echo "$0 started, fencing token $ZKCURATOR_FENCING_TOKEN" >> "$1"; sleep 0.2; echo "$0 done" >> "$1"`
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, job := range []string{"job-a", "job-b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, bin, "lock", "--connect", connect, "--namespace", st.Namespace(),
				"--session-timeout", "4s", "/jobs/report", "--", "sh", "-c", script, job, log)
			if b, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("demo: zkcurator lock for %s: %v: %s", job, err, strings.TrimSpace(string(b)))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	b, err := os.ReadFile(log)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		p.Say("%s", l)
	}
	v := &verdict{}
	v.Expect(len(lines) == 4 && strings.HasSuffix(lines[1], " done") && strings.HasPrefix(lines[1], strings.Fields(lines[0])[0]+" "),
		"the jobs' lines %q show them running at once", lines)
	return v.Conclude(p, "the two jobs ran one after the other; a Curator service on /jobs/report would wait its turn too")
}
