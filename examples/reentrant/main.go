// Command reentrant shows that InterProcessMutex nests per handle: one handle
// acquires the lock several times and keeps a single node, released only by
// the outermost Release, while a second handle on the same client waits. It
// exits with status 1 if the node changed, vanished early or the second
// handle got in too soon.
//
//	go run ./examples/reentrant [-depth 3]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is unset.
package main

import (
	"context"
	"flag"
	"io"

	"github.com/zkcurator/zkcurator/examples/internal/demo"
)

func main() {
	depth := flag.Int("depth", 3, "how many times the first handle acquires, nested (2..10)")
	flag.Parse()
	cfg := demo.ReentrantConfig{Depth: *depth}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

func run(ctx context.Context, connect string, out io.Writer, cfg demo.ReentrantConfig) error {
	return demo.Reentrant(ctx, connect, out, cfg)
}
