// Command semaphore shows InterProcessSemaphoreV2 as the front door of a
// flash sale: requests arriving together at several servers each take a
// lease before checkout, so no more than a fixed number are in checkout at
// once across all servers. It exits with status 1 if more ever were.
//
//	go run ./examples/semaphore [-leases 3] [-requests 12] [-servers 3] [-work 50ms]
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
	leases := flag.Int("leases", 3, "requests allowed in checkout at once (1..20)")
	requests := flag.Int("requests", 12, "requests arriving together (1..500)")
	servers := flag.Int("servers", 3, "front-end servers, each with its own client (1..20)")
	work := flag.Duration("work", 50*time.Millisecond, "longest time a request stays in checkout (negative: none)")
	flag.Parse()
	cfg := demo.SemaphoreConfig{Leases: *leases, Requests: *requests, Servers: *servers, Work: *work}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

func run(ctx context.Context, connect string, out io.Writer, cfg demo.SemaphoreConfig) error {
	return demo.Semaphore(ctx, connect, out, cfg)
}
