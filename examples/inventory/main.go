// Command inventory runs a flash sale four times: 60 buyers, each with a
// client of its own, buy from a stock of 50 kept in a znode. Without a lock
// the sale oversells or loses updates; with an InterProcessMutex, with
// version-checked writes, and with a DistributedAtomicLong's CompareAndSet,
// exactly 50 are sold and 10 buyers are told "sold out". It exits with status 1 if a protected round gets the count wrong.
//
//	go run ./examples/inventory [-stock 50] [-buyers 60] [-think 5ms]
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
	stock := flag.Int("stock", 50, "items for sale (1..1000)")
	buyers := flag.Int("buyers", 60, "buyers, each with its own client (1..200)")
	think := flag.Duration("think", 5*time.Millisecond, "longest pause between reading the stock and writing it (negative: none)")
	flag.Parse()
	cfg := demo.InventoryConfig{Stock: *stock, Buyers: *buyers, Think: *think}
	demo.Main(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

func run(ctx context.Context, connect string, out io.Writer, cfg demo.InventoryConfig) error {
	return demo.Inventory(ctx, connect, out, cfg)
}
