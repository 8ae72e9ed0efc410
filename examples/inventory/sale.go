package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// sale is the outcome of one round of a flash sale.
type sale struct {
	Sold      int // buyers told "you bought one"
	SoldOut   int // buyers told "sold out"
	Final     int // the stock left in ZooKeeper afterwards
	Conflicts int // writes that lost a race and were tried again
	Took      time.Duration
}

// runBuyers lets each of n buyers call buy once, all starting at the same
// moment, counts what they were told, and then reads the stock left with
// final. buy reports whether buyer i got an item and how many of its writes
// lost a race on the way.
func runBuyers(ctx context.Context, n int, buy func(ctx context.Context, i int) (bought bool, conflicts int, err error), final func() (int, error)) (sale, error) {
	var (
		r     sale
		mu    sync.Mutex
		wg    sync.WaitGroup
		errs  = make([]error, n)
		start = make(chan struct{})
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			bought, conflicts, err := buy(ctx, i)
			mu.Lock()
			defer mu.Unlock()
			r.Conflicts += conflicts
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("buyer %d: %w", i+1, err)
			case bought:
				r.Sold++
			default:
				r.SoldOut++
			}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	r.Took = time.Since(began)
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	left, err := final()
	r.Final = left
	return r, err
}

// checkSale records on v what a safe round of a sale of stock items to
// buyers must have produced: no item sold twice or lost, everyone else told
// "sold out".
func checkSale(v *verdict, round string, r sale, stock, buyers int) {
	sold := min(stock, buyers)
	v.Expect(r.Sold == sold, "%s: %d sold, want %d", round, r.Sold, sold)
	v.Expect(r.SoldOut == buyers-sold, "%s: %d told sold out, want %d", round, r.SoldOut, buyers-sold)
	v.Expect(r.Final == stock-sold, "%s: stock left %d, want %d", round, r.Final, stock-sold)
}

// reportSale prints a round's outcome.
func reportSale(p *printer, r sale) {
	p.Say("  sold %d, told \"sold out\" %d, stock left in ZooKeeper %d (%v)", r.Sold, r.SoldOut, r.Final, r.Took.Round(time.Millisecond))
}

// pause sleeps a random time below upTo (not at all when upTo is not
// positive), or fails with ctx's error when ctx ends first.
func pause(ctx context.Context, upTo time.Duration) error {
	if upTo <= 0 {
		return nil
	}
	return sleep(ctx, rand.N(upTo))
}

// sleep waits for d, or fails with ctx's error when ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
