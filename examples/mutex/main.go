// Command mutex shows that InterProcessMutex is fair: ten workers, each with
// a client of its own as ten processes would have, line up for one lock and
// get it one at a time in the order they arrived. It exits with status 1 if
// two workers ever held the lock at once or the order was not the arrival
// order.
//
//	go run ./examples/mutex [-workers 10] [-hold 100ms]
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
	return demo.Mutex(ctx, connect, out, cfg)
}
