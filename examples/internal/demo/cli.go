package demo

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

// CLI shows the command-line tool, cmd/zkcurator: it builds it with the go
// command, starts two "cron jobs" at once under zkcurator lock on one path
// and shows that their commands ran one after the other, each with a larger
// fencing token. It fails with ErrInvariant if the commands overlapped.
func CLI(ctx context.Context, connect string, out io.Writer) error {
	st := newStage(connect, out, "cli")
	defer st.close()
	p := st.p
	p.title("cli: two cron jobs start at once under 'zkcurator lock /jobs/report -- report.sh'")

	dir, err := os.MkdirTemp("", "zkcurator-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "zkcurator")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/zkcurator/zkcurator/cmd/zkcurator")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("demo: build cmd/zkcurator (run the tour from the repository): %v: %s", err, strings.TrimSpace(string(b)))
	}
	p.say("built %s (go install github.com/zkcurator/zkcurator/cmd/zkcurator@latest)", "zkcurator")

	log := filepath.Join(dir, "log")
	script := `echo "$0 started, fencing token $ZKCURATOR_FENCING_TOKEN" >> "$1"; sleep 0.2; echo "$0 done" >> "$1"`
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, job := range []string{"job-a", "job-b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, bin, "lock", "--connect", st.connect, "--namespace", st.ns,
				"--session-timeout", sessionTimeout.String(), "/jobs/report", "--", "sh", "-c", script, job, log)
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
		p.say("%s", l)
	}
	v := &verdict{}
	v.expect(len(lines) == 4 && strings.HasSuffix(lines[1], " done") && strings.HasPrefix(lines[1], strings.Fields(lines[0])[0]+" "),
		"the jobs' lines %q show them running at once", lines)
	return v.conclude(p, "the two jobs ran one after the other; a Curator service on /jobs/report would wait its turn too")
}
