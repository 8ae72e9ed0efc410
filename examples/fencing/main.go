// Command fencing shows what Lost and FencingToken are for: a lock holder
// stalls past its session, loses the lock to another client, wakes up and
// writes anyway, and the storage refuses the write because its fencing token
// is older than the new holder's. It exits with status 1 if Lost does not
// fire or the stale write is accepted.
//
//	go run ./examples/fencing [-session 1s]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. The stalling client reaches ZooKeeper through a local proxy in front
// of the first address in ZK_CONNECT.
package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/examples/internal/demo"
)

func main() {
	session := flag.Duration("session", time.Second, "session timeout of the stalling holder (400ms..10s)")
	flag.Parse()
	cfg := demo.FencingConfig{SessionTimeout: *session}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

func run(ctx context.Context, connect string, out io.Writer, cfg demo.FencingConfig) error {
	return demo.Fencing(ctx, connect, out, cfg)
}
