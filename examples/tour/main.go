// Command tour is a newcomer's first look at zkcurator: it runs every lock
// demo in turn against one ZooKeeper, each briefly, and exits with status 1
// if any demo failed or broke the promise it shows.
//
//	go run ./examples/tour     (or: make demo)
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Each demo can also be run alone: go run ./examples/<name>.
package main

import (
	"context"
	"fmt"
	"io"
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
	name  string // the example's folder under examples/
	about string // what it shows, in one line
	run   func(ctx context.Context, connect string, out io.Writer) error
}

// tourSteps returns the demos in the order a newcomer should meet them, each
// sized to take a second or two.
func tourSteps() []step {
	return []step{
		{"mutex", "a fair lock across processes", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.Mutex(ctx, connect, out, demo.ContentionConfig{Workers: 10, Hold: 50 * time.Millisecond})
		}},
		{"unfair", "the same lock with a driver that hands it out at random", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.Unfair(ctx, connect, out, demo.ContentionConfig{Workers: 10, Hold: 50 * time.Millisecond})
		}},
		{"reentrant", "acquiring again through the same handle nests", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.Reentrant(ctx, connect, out, demo.ReentrantConfig{})
		}},
		{"readwrite", "shared readers, exclusive writers, downgrade", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.ReadWrite(ctx, connect, out, demo.ReadWriteConfig{})
		}},
		{"semaphore", "at most N at once: a lease per request", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.Semaphore(ctx, connect, out, demo.SemaphoreConfig{})
		}},
		{"inventory", "a flash sale without a lock, with a lock, with version checks, with DistributedAtomicLong", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.Inventory(ctx, connect, out, demo.InventoryConfig{})
		}},
		{"leader", "a singleton job: one leader among three, a takeover when it dies", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.Leader(ctx, connect, out, demo.LeaderConfig{})
		}},
		{"config", "a feature flag every instance follows through a NodeCache", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.Config(ctx, connect, out, demo.ConfigConfig{})
		}},
		{"fencing", "why Lost() and FencingToken() exist", func(ctx context.Context, connect string, out io.Writer) error {
			return demo.Fencing(ctx, connect, out, demo.FencingConfig{})
		}},
		{"cli", "any command under a lock: zkcurator lock PATH -- CMD", demo.CLI},
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
		fmt.Fprintf(out, "\n==== %d/%d  %s: %s  (go run ./examples/%s)\n", i+1, len(steps), s.name, s.about, s.name)
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
	fmt.Fprintf(out, "\nall %d demos passed. Next: read README.md, run any demo alone (go run ./examples/<name>),\n", len(steps))
	fmt.Fprintf(out, "or see a lock driver of your own: go run ./examples/customdriver\n")
	return nil
}
