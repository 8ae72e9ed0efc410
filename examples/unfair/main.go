// Command unfair runs the mutex demo with UnfairLockInternalsDriver: the
// lock goes to a random waiter instead of the longest waiting one, so the
// order of acquisition is shuffled, and still only one worker holds the lock
// at a time. It exits with status 1 if two workers ever held it at once.
//
//	go run ./examples/unfair [-workers 10] [-hold 100ms]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is unset.
package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/examples/internal/demo"
)

func main() {
	workers := flag.Int("workers", 10, "number of workers, each with its own client (2..50)")
	hold := flag.Duration("hold", 100*time.Millisecond, "how long each worker holds the lock (negative: not at all)")
	flag.Parse()
	cfg := demo.ContentionConfig{Workers: *workers, Hold: *hold}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

func run(ctx context.Context, connect string, out io.Writer, cfg demo.ContentionConfig) error {
	return demo.Unfair(ctx, connect, out, cfg)
}
