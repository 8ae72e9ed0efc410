package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// InventoryConfig sizes the flash-sale demo.
type InventoryConfig struct {
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

func (c InventoryConfig) withDefaults() (InventoryConfig, error) {
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

const (
	stockPath     = "/inventory/stock"
	stockLockPath = "/locks/inventory"
	// atomicStockPath holds the stock of round 4 in Curator's encoding of a
	// DistributedAtomicLong (8 big-endian bytes), so a Java service using
	// Curator could sell from it too.
	atomicStockPath = "/inventory/stock-long"
)

// sale is the outcome of one round of the flash sale.
type sale struct {
	sold      int // buyers told "you bought one"
	soldOut   int // buyers told "sold out"
	final     int // the stock left in ZooKeeper afterwards
	conflicts int // version-checked writes that lost the race and retried
	took      time.Duration
}

// buyFunc is one buyer's attempt: it reports whether the buyer got an item
// and how many of its writes were rejected on the way.
type buyFunc func(ctx context.Context, c *framework.Client, think time.Duration) (bought bool, conflicts int, err error)

// Inventory runs a flash sale four times on a stock count kept in a znode:
// every buyer reads the count, pauses and writes count-1. Without a lock the
// sale oversells or loses updates; with an InterProcessMutex, with
// version-checked writes (optimistic concurrency), and with a
// DistributedAtomicLong's CompareAndSet (the same check packaged as a
// recipe), exactly Stock items are sold and the other buyers are told the
// item is sold out. It fails with ErrInvariant when one of the safe rounds
// gets the count wrong; the unsafe round only reports what went wrong,
// because a race may not show.
func Inventory(ctx context.Context, connect string, out io.Writer, cfg InventoryConfig) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	st := newStage(connect, out, "inventory")
	defer st.close()
	p := st.p
	p.title("inventory: a flash sale of %d items to %d buyers, each with its own client", cfg.Stock, cfg.Buyers)

	clients, err := st.clientsFor(ctx, cfg.Buyers)
	if err != nil {
		return err
	}
	if _, err := clients[0].Create(ctx, stockPath, nil, framework.CreatingParentsIfNeeded()); err != nil {
		return err
	}

	p.say("round 1, no lock: each buyer reads the stock, checks the payment, writes stock-1")
	r, err := runSale(ctx, clients, cfg, buyUnlocked)
	if err != nil {
		return err
	}
	reportSale(p, r)
	oversold := max(0, r.sold-cfg.Stock)
	lost := r.final - (cfg.Stock - r.sold)
	if oversold > 0 {
		p.say("  OVERSOLD: %d buyers were sold items that did not exist", oversold)
	}
	if lost > 0 {
		p.say("  LOST UPDATES: %d sales never reduced the stock (buyers read the same count and wrote the same count-1)", lost)
	}
	if oversold == 0 && lost <= 0 {
		p.say("  no anomaly this time: a race depends on timing; run again and it will show")
	}

	p.say("round 2, InterProcessMutex: each buyer reads and writes while holding the lock")
	locked, err := runSale(ctx, clients, cfg, buyLocked)
	if err != nil {
		return err
	}
	reportSale(p, locked)

	p.say("round 3, no lock but a version check: setData(stock-1, version read) fails if anyone wrote in between; retry")
	optimistic, err := runSale(ctx, clients, cfg, buyOptimistic)
	if err != nil {
		return err
	}
	reportSale(p, optimistic)
	p.say("  %d writes were rejected by the version check and retried", optimistic.conflicts)

	p.say("round 4, DistributedAtomicLong: the stock as Curator's 8-byte long; CompareAndSet(n, n-1), again when another buyer came first")
	counted, err := runAtomicSale(ctx, clients, cfg)
	if err != nil {
		return err
	}
	reportSale(p, counted)
	p.say("  %d compare-and-sets found the stock changed and were retried", counted.conflicts)

	v := &verdict{}
	checkSale(v, "with the mutex", locked, cfg)
	checkSale(v, "with version checks", optimistic, cfg)
	checkSale(v, "with DistributedAtomicLong", counted, cfg)
	return v.conclude(p, fmt.Sprintf("with the lock, with version checks and with DistributedAtomicLong exactly %d sold, stock 0, %d told sold out",
		min(cfg.Stock, cfg.Buyers), max(0, cfg.Buyers-cfg.Stock)))
}

// checkSale records on v what a safe round of sale must have produced.
func checkSale(v *verdict, round string, r sale, cfg InventoryConfig) {
	sold := min(cfg.Stock, cfg.Buyers)
	v.expect(r.sold == sold, "%s: %d sold, want %d", round, r.sold, sold)
	v.expect(r.soldOut == cfg.Buyers-sold, "%s: %d told sold out, want %d", round, r.soldOut, cfg.Buyers-sold)
	v.expect(r.final == cfg.Stock-sold, "%s: stock left %d, want %d", round, r.final, cfg.Stock-sold)
}

func reportSale(p *printer, r sale) {
	p.say("  sold %d, told \"sold out\" %d, stock left in ZooKeeper %d (%v)", r.sold, r.soldOut, r.final, r.took.Round(time.Millisecond))
}

// runSale resets the stock, lets every buyer try once, all starting at the
// same moment, and reads the stock left.
func runSale(ctx context.Context, clients []*framework.Client, cfg InventoryConfig, buy buyFunc) (sale, error) {
	if _, err := clients[0].SetData(ctx, stockPath, []byte(strconv.Itoa(cfg.Stock)), -1); err != nil {
		return sale{}, err
	}
	return runBuyers(ctx, clients, cfg, buy, func() (int, error) {
		n, _, err := readStock(ctx, clients[0])
		return n, err
	})
}

// runBuyers lets every buyer try once, all starting at the same moment, and
// reads the stock left with final.
func runBuyers(ctx context.Context, clients []*framework.Client, cfg InventoryConfig, buy buyFunc, final func() (int, error)) (sale, error) {
	var (
		r     sale
		mu    sync.Mutex
		wg    sync.WaitGroup
		errs  = make([]error, len(clients))
		start = make(chan struct{})
	)
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			bought, conflicts, err := buy(ctx, c, cfg.Think)
			mu.Lock()
			defer mu.Unlock()
			r.conflicts += conflicts
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("buyer %d: %w", i+1, err)
			case bought:
				r.sold++
			default:
				r.soldOut++
			}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	r.took = time.Since(began)
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	n, err := final()
	r.final = n
	return r, err
}

// buyUnlocked reads, pauses and writes with no protection at all.
func buyUnlocked(ctx context.Context, c *framework.Client, think time.Duration) (bool, int, error) {
	n, _, err := readStock(ctx, c)
	if err != nil || n <= 0 {
		return false, 0, err
	}
	if err := pause(ctx, think); err != nil {
		return false, 0, err
	}
	_, err = c.SetData(ctx, stockPath, []byte(strconv.Itoa(n-1)), -1)
	return err == nil, 0, err
}

// buyLocked is buyUnlocked under an InterProcessMutex: a handle per buyer.
func buyLocked(ctx context.Context, c *framework.Client, think time.Duration) (bought bool, conflicts int, err error) {
	m := locks.NewInterProcessMutex(c, stockLockPath)
	if err := m.Acquire(ctx); err != nil {
		return false, 0, err
	}
	defer func() { err = errors.Join(err, m.Release(context.WithoutCancel(ctx))) }()
	return buyUnlocked(ctx, c, think)
}

// maxAttempts bounds an optimistic buyer's retries; each rejected write means
// another buyer's write went through, so a sale needs far fewer.
const maxAttempts = 10000

// buyOptimistic writes only if the stock is still at the version it read,
// and tries again from the start when it was not.
func buyOptimistic(ctx context.Context, c *framework.Client, think time.Duration) (bool, int, error) {
	for attempt := range maxAttempts {
		n, version, err := readStock(ctx, c)
		if err != nil || n <= 0 {
			return false, attempt, err
		}
		if err := pause(ctx, think); err != nil {
			return false, attempt, err
		}
		_, err = c.SetData(ctx, stockPath, []byte(strconv.Itoa(n-1)), version)
		switch {
		case err == nil:
			return true, attempt, nil
		case !errors.Is(err, zk.ErrBadVersion):
			return false, attempt, err
		}
	}
	return false, maxAttempts, fmt.Errorf("no sale after %d attempts", maxAttempts)
}

// readStock returns the stock count and the version of its znode.
func readStock(ctx context.Context, c *framework.Client) (int, int32, error) {
	data, stat, err := c.GetData(ctx, stockPath)
	if err != nil {
		return 0, 0, err
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		return 0, 0, fmt.Errorf("stock %q in %s is not a number: %w", data, stockPath, err)
	}
	return n, stat.Version, nil
}

// pause sleeps a random time below up to, or until ctx ends.
func pause(ctx context.Context, upTo time.Duration) error {
	if upTo <= 0 {
		return nil
	}
	t := time.NewTimer(rand.N(upTo))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runAtomicSale is a round on a DistributedAtomicLong: the stock is set
// with ForceSet, and each buyer compares and sets it one lower.
func runAtomicSale(ctx context.Context, clients []*framework.Client, cfg InventoryConfig) (sale, error) {
	stock, err := atomic.NewDistributedAtomicLong(clients[0], atomicStockPath)
	if err != nil {
		return sale{}, err
	}
	if err := stock.ForceSet(ctx, int64(cfg.Stock)); err != nil {
		return sale{}, err
	}
	return runBuyers(ctx, clients, cfg, buyAtomic, func() (int, error) {
		r, err := stock.Get(ctx)
		return int(r.PostValue), err
	})
}

// buyAtomic reads the stock and takes one with CompareAndSet(n, n-1),
// reading again when another buyer changed it first. A compare-and-set whose
// reply was lost reports atomic.ErrOutcomeUnknown: the buyer may or may not
// have the item, and this demo stops there rather than guess.
func buyAtomic(ctx context.Context, c *framework.Client, think time.Duration) (bool, int, error) {
	stock, err := atomic.NewDistributedAtomicLong(c, atomicStockPath)
	if err != nil {
		return false, 0, err
	}
	for attempt := range maxAttempts {
		r, err := stock.Get(ctx)
		if err != nil || r.PostValue <= 0 {
			return false, attempt, err
		}
		if err := pause(ctx, think); err != nil {
			return false, attempt, err
		}
		r, err = stock.CompareAndSet(ctx, r.PostValue, r.PostValue-1)
		switch {
		case err != nil:
			return false, attempt, err
		case r.Succeeded:
			return true, attempt, nil
		}
	}
	return false, maxAttempts, fmt.Errorf("no sale after %d attempts", maxAttempts)
}
