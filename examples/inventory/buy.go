package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// buyFunc is one buyer's attempt: it reports whether the buyer got an item
// and how many of its writes were rejected on the way.
type buyFunc func(ctx context.Context, c *framework.Client, think time.Duration) (bought bool, conflicts int, err error)

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
	m, err := locks.NewInterProcessMutex(c, stockLockPath)
	if err != nil {
		return false, 0, err
	}
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
