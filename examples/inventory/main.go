// Command inventory runs a flash sale four times: 60 buyers, each with a
// client of its own, buy from a stock of 50 kept in a znode. Without a lock
// the sale oversells or loses updates; with an InterProcessMutex, with
// version-checked writes, and with a DistributedAtomicLong's CompareAndSet,
// exactly 50 are sold and 10 buyers are told "sold out". It exits with
// status 1 if a protected round gets the count wrong.
//
//	go run ./examples/inventory [-stock 50] [-buyers 60] [-think 5ms]
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is
// unset. Read run for the rounds, then buy.go for the four ways a buyer
// takes an item: unprotected, under an InterProcessMutex (Acquire, the
// read-modify-write, Release), with a version check, and with a
// DistributedAtomicLong.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/retry"
)

func main() {
	stock := flag.Int("stock", 50, "items for sale (1..1000)")
	buyers := flag.Int("buyers", 60, "buyers, each with its own client (1..200)")
	think := flag.Duration("think", 5*time.Millisecond, "longest pause between reading the stock and writing it (negative: none)")
	flag.Parse()
	cfg := config{Stock: *stock, Buyers: *buyers, Think: *think}
	// runProgram (setup.go) finds ZooKeeper, bounds the time and exits with
	// status 1 when run fails or its promise did not hold.
	runProgram(func(ctx context.Context, connect string, out io.Writer) error {
		return run(ctx, connect, out, cfg)
	})
}

const (
	stockPath     = "/inventory/stock"
	stockLockPath = "/locks/inventory"
	// atomicStockPath holds the stock of round 4 in Curator's encoding of a
	// DistributedAtomicLong (8 big-endian bytes), so a Java service using
	// Curator could sell from it too.
	atomicStockPath = "/inventory/stock-long"
)

// run holds a flash sale four times on a stock count kept in a znode:
// every buyer reads the count, pauses and writes count-1. Without a lock the
// sale oversells or loses updates; with an InterProcessMutex, with
// version-checked writes (optimistic concurrency), and with a
// DistributedAtomicLong's CompareAndSet (the same check packaged as a
// recipe), exactly cfg.Stock items are sold and the other buyers are told
// the item is sold out. It fails with errInvariant when one of the safe
// rounds gets the count wrong; the unsafe round only reports what went
// wrong, because a race may not show.
func run(ctx context.Context, connect string, out io.Writer, cfg config) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "inventory")
	defer st.Close()
	p := st.Printer
	p.Title("inventory: a flash sale of %d items to %d buyers, each with its own client", cfg.Stock, cfg.Buyers)

	clients, err := connectAll(ctx, cfg.Buyers, func(ctx context.Context) (*framework.Client, error) {
		return newClient(ctx, connect, st.Namespace())
	})
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	if _, err := clients[0].Create(ctx, stockPath, nil, framework.CreatingParentsIfNeeded()); err != nil {
		return err
	}

	p.Say("round 1, no lock: each buyer reads the stock, checks the payment, writes stock-1")
	r, err := runSale(ctx, clients, cfg, buyUnlocked)
	if err != nil {
		return err
	}
	reportSale(p, r)
	oversold := max(0, r.Sold-cfg.Stock)
	lost := r.Final - (cfg.Stock - r.Sold)
	if oversold > 0 {
		p.Say("  OVERSOLD: %d buyers were sold items that did not exist", oversold)
	}
	if lost > 0 {
		p.Say("  LOST UPDATES: %d sales never reduced the stock (buyers read the same count and wrote the same count-1)", lost)
	}
	if oversold == 0 && lost <= 0 {
		p.Say("  no anomaly this time: a race depends on timing; run again and it will show")
	}

	p.Say("round 2, InterProcessMutex: each buyer reads and writes while holding the lock")
	locked, err := runSale(ctx, clients, cfg, buyLocked)
	if err != nil {
		return err
	}
	reportSale(p, locked)

	p.Say("round 3, no lock but a version check: setData(stock-1, version read) fails if anyone wrote in between; retry")
	optimistic, err := runSale(ctx, clients, cfg, buyOptimistic)
	if err != nil {
		return err
	}
	reportSale(p, optimistic)
	p.Say("  %d writes were rejected by the version check and retried", optimistic.Conflicts)

	p.Say("round 4, DistributedAtomicLong: the stock as Curator's 8-byte long; CompareAndSet(n, n-1), again when another buyer came first")
	counted, err := runAtomicSale(ctx, clients, cfg)
	if err != nil {
		return err
	}
	reportSale(p, counted)
	p.Say("  %d compare-and-sets found the stock changed and were retried", counted.Conflicts)

	v := &verdict{}
	checkSale(v, "with the mutex", locked, cfg.Stock, cfg.Buyers)
	checkSale(v, "with version checks", optimistic, cfg.Stock, cfg.Buyers)
	checkSale(v, "with DistributedAtomicLong", counted, cfg.Stock, cfg.Buyers)
	return v.Conclude(p, fmt.Sprintf("with the lock, with version checks and with DistributedAtomicLong exactly %d sold, stock 0, %d told sold out",
		min(cfg.Stock, cfg.Buyers), max(0, cfg.Buyers-cfg.Stock)))
}

// runSale resets the stock, lets every buyer try once with buy, all
// starting at the same moment, and reads the stock left.
func runSale(ctx context.Context, clients []*framework.Client, cfg config, buy buyFunc) (sale, error) {
	if _, err := clients[0].SetData(ctx, stockPath, []byte(strconv.Itoa(cfg.Stock)), -1); err != nil {
		return sale{}, err
	}
	return runBuyers(ctx, len(clients), func(ctx context.Context, i int) (bool, int, error) {
		return buy(ctx, clients[i], cfg.Think)
	}, func() (int, error) {
		n, _, err := readStock(ctx, clients[0])
		return n, err
	})
}

// runAtomicSale is a round on a DistributedAtomicLong: the stock is set
// with ForceSet, and each buyer compares and sets it one lower.
func runAtomicSale(ctx context.Context, clients []*framework.Client, cfg config) (sale, error) {
	stock, err := atomic.NewDistributedAtomicLong(clients[0], atomicStockPath)
	if err != nil {
		return sale{}, err
	}
	if err := stock.ForceSet(ctx, int64(cfg.Stock)); err != nil {
		return sale{}, err
	}
	return runBuyers(ctx, len(clients), func(ctx context.Context, i int) (bool, int, error) {
		return buyAtomic(ctx, clients[i], cfg.Think)
	}, func() (int, error) {
		r, err := stock.Get(ctx)
		return int(r.PostValue), err
	})
}

// newClient connects one client, as one process would: Curator's exponential
// backoff for retries, a session timeout, and the demo's namespace under
// which every path is resolved. Start returns at once; BlockUntilConnected
// waits (here at most 15s) for the first connection.
func newClient(ctx context.Context, connect, namespace string) (*framework.Client, error) {
	client, err := framework.NewClient(connect,
		retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithNamespace(namespace),
		framework.WithSessionTimeout(4*time.Second),
		framework.WithConnectionTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	if err := client.Start(); err != nil {
		client.Close()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := client.BlockUntilConnected(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("connect to ZooKeeper at %s: %w", connect, err)
	}
	return client, nil
}

// config sizes the demo.
type config struct {
	// Stock is the number of items for sale; 1 to 1000, 50 when zero.
	Stock int
	// Buyers is the number of buyers, each with a client of its own;
	// 1 to 200, 60 when zero.
	Buyers int
	// Think bounds the random pause a buyer takes between reading the stock
	// and writing it back (checking the payment); at most 1s, 5ms when zero
	// (a negative value means no pause).
	Think time.Duration
}

func (c config) withDefaults() (config, error) {
	if c.Stock == 0 {
		c.Stock = 50
	}
	if c.Buyers == 0 {
		c.Buyers = 60
	}
	if c.Think == 0 {
		c.Think = 5 * time.Millisecond
	}
	if c.Think < 0 {
		c.Think = 0
	}
	switch {
	case c.Stock < 1 || c.Stock > 1000:
		return c, fmt.Errorf("demo: Stock %d is outside 1..1000", c.Stock)
	case c.Buyers < 1 || c.Buyers > 200:
		return c, fmt.Errorf("demo: Buyers %d is outside 1..200", c.Buyers)
	case c.Think > time.Second:
		return c, fmt.Errorf("demo: Think %v is longer than 1s", c.Think)
	}
	return c, nil
}
