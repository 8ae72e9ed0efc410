// Command config shows a feature flag kept in ZooKeeper and followed by
// every service instance through a NodeCache: each instance, with a client
// of its own as separate processes would have, reads the flag locally, and
// sees every change the operator writes within one round trip plus the
// watch, in order. It exits with status 1 if an instance missed a value,
// saw them out of order, or saw one late.
//
//	go run ./examples/config [-instances 3] [-flips 5]
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
	instances := flag.Int("instances", 3, "number of service instances, each with its own client (2..9)")
	flips := flag.Int("flips", 5, "how many times the operator flips the flag (1..100)")
	flag.Parse()
	cfg := demo.ConfigConfig{Instances: *instances, Flips: *flips}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

func run(ctx context.Context, connect string, out io.Writer, cfg demo.ConfigConfig) error {
	return demo.Config(ctx, connect, out, cfg)
}
