// Command tour is a newcomer's first look at zkcurator: it runs every lock
// demo in turn against one ZooKeeper, each briefly, and exits with status 1
// if any demo failed or broke the promise it shows.
//
//	go run ./examples/tour     (or: make demo)
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Each demo is the program in examples/<name>, built with the go
// command (so run the tour from the repository) and run as it would be
// alone, with the flags the tour shows: go run ./examples/<name>.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/examples/internal/demo"
)

func main() {
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, tourSteps())
	})
}

// step is one demo of the tour.
type step struct {
	name  string   // the example's folder under examples/
	about string   // what it shows, in one line
	args  []string // the flags the tour passes to the example
	run   func(ctx context.Context, connect string, out io.Writer) error
}

// tourSteps returns the demos in the order a newcomer should meet them, each
// sized to take a second or two.
func tourSteps() []step {
	steps := []step{
		{name: "mutex", about: "a fair lock across processes", args: []string{"-workers", "10", "-hold", "50ms"}},
		{name: "unfair", about: "the same lock with a driver that hands it out at random", args: []string{"-workers", "10", "-hold", "50ms"}},
		{name: "reentrant", about: "acquiring again through the same handle nests"},
		{name: "readwrite", about: "shared readers, exclusive writers, downgrade"},
		{name: "semaphore", about: "at most N at once: a lease per request"},
		{name: "inventory", about: "a flash sale without a lock, with a lock, with version checks, with DistributedAtomicLong"},
		{name: "leader", about: "a singleton job: one leader among three, a takeover when it dies"},
		{name: "groupmember", about: "three members join a group, one dies, the others see it"},
		{name: "config", about: "a feature flag every instance follows through a CuratorCache"},
		{name: "discovery", about: "services register as Curator does; a client picks one round-robin"},
		{name: "fencing", about: "why Lost() and FencingToken() exist"},
		{name: "cli", about: "any command under a lock: zkcurator lock PATH -- CMD"},
	}
	for i := range steps {
		steps[i].run = program(steps[i].name, steps[i].args...)
	}
	return steps
}

// stopWait is how long an interrupted example may take to clean up and exit.
const stopWait = 15 * time.Second

// program returns a step's run: it builds the example in examples/<name>
// and runs it with args against connect (in ZK_CONNECT), its output and
// errors going to out. An interrupted tour interrupts the example, which
// then cleans up as it would at Ctrl-C.
func program(name string, args ...string) func(ctx context.Context, connect string, out io.Writer) error {
	return func(ctx context.Context, connect string, out io.Writer) error {
		dir, err := os.MkdirTemp("", "zkcurator-tour-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin, err := demo.Build(ctx, dir, "github.com/zkcurator/zkcurator/examples/"+name)
		if err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), demo.EnvConnect+"="+connect)
		cmd.Stdout, cmd.Stderr = out, out
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
		cmd.WaitDelay = stopWait
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("examples/%s: %w", name, err)
		}
		return nil
	}
}

// run runs every step, even after one fails, then prints a summary and
// returns an error naming the steps that failed.
func run(ctx context.Context, connect string, out io.Writer, steps []step) error {
	fmt.Fprintf(out, "\nzkcurator tour: %d demos against %s\n", len(steps), connect)
	type outcome struct {
		ran  bool
		took time.Duration
		err  error
	}
	results := make([]outcome, len(steps))
	for i, s := range steps {
		fmt.Fprintf(out, "\n==== %d/%d  %s: %s  (go run ./examples/%s)\n", i+1, len(steps), s.name, s.about,
			strings.Join(append([]string{s.name}, s.args...), " "))
		began := time.Now()
		err := s.run(ctx, connect, out)
		results[i] = outcome{ran: true, took: time.Since(began), err: err}
		if err != nil {
			fmt.Fprintf(out, "FAILED: %v\n", err)
		}
		if ctx.Err() != nil {
			break
		}
	}

	fmt.Fprintf(out, "\n==== summary\n\n")
	var failed []string
	for i, s := range steps {
		r := results[i]
		status := "ok"
		switch {
		case r.err != nil:
			status = "FAILED"
			failed = append(failed, s.name)
		case !r.ran:
			status = "not run"
			failed = append(failed, s.name)
		}
		fmt.Fprintf(out, "  %-10s %-7s %5.1fs  %s\n", s.name, status, r.took.Seconds(), s.about)
	}
	if len(failed) > 0 {
		return fmt.Errorf("tour: %d of %d demos failed or did not run: %s", len(failed), len(steps), strings.Join(failed, ", "))
	}
	fmt.Fprintf(out, "\nall %d demos passed. Next: read README.md and docs/, run any demo alone (go run ./examples/<name>),\n", len(steps))
	fmt.Fprintf(out, "or see a lock driver of your own: go run ./examples/customdriver\n")
	return nil
}
