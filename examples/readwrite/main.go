// Command readwrite shows InterProcessReadWriteLock: readers hold the read
// lock together, a writer waits for them and then excludes everyone, and the
// writer downgrades to a reader without letting another writer in between.
// It exits with status 1 if any of that does not hold.
//
//	go run ./examples/readwrite [-readers 3]
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
	readers := flag.Int("readers", 3, "readers that hold the read lock together (2..20)")
	flag.Parse()
	cfg := demo.ReadWriteConfig{Readers: *readers}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

func run(ctx context.Context, connect string, out io.Writer, cfg demo.ReadWriteConfig) error {
	return demo.ReadWrite(ctx, connect, out, cfg)
}
