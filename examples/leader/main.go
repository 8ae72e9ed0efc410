// Command leader shows a singleton job with LeaderLatch: three report
// schedulers, each with a client of its own as three processes would have,
// run for leader; only the leader runs the job, writing each report with its
// fencing token. The leader is killed, and another scheduler takes over once
// ZooKeeper expires the dead one's session. It exits with status 1 if two
// schedulers ever led at once, the takeover took longer than the session
// timeout allows, or a token did not grow.
//
//	go run ./examples/leader [-processes 3] [-session-timeout 1s] [-every 150ms]
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
	processes := flag.Int("processes", 3, "number of schedulers, each with its own client (2..9)")
	session := flag.Duration("session-timeout", time.Second, "the schedulers' session timeout (400ms..10s)")
	every := flag.Duration("every", 150*time.Millisecond, "how often the leader runs the report job")
	flag.Parse()
	cfg := demo.LeaderConfig{Processes: *processes, SessionTimeout: *session, Every: *every}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

func run(ctx context.Context, connect string, out io.Writer, cfg demo.LeaderConfig) error {
	return demo.Leader(ctx, connect, out, cfg)
}
