package main

import (
	"context"
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
)

// connect starts a zkcurator client of its own session, with the retry
// policy the Curator helper gives its clients, and waits until it is
// connected.
func connect(ctx context.Context, addr string, sessionTimeout time.Duration) (*framework.Client, error) {
	c, err := framework.NewClient(addr, retry.ExponentialBackoff{BaseSleep: 50 * time.Millisecond, MaxSleep: time.Second, MaxRetries: 10},
		framework.WithSessionTimeout(sessionTimeout), framework.WithConnectionTimeout(sessionTimeout))
	if err != nil {
		return nil, fmt.Errorf("recipebench: client of %s: %w", addr, err)
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("recipebench: start a client of %s: %w", addr, err)
	}
	if err := c.BlockUntilConnected(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("recipebench: connect to %s: %w", addr, err)
	}
	return c, nil
}

// together connects one client per address, then runs work on every
// client at once and returns the time from the start until the last one
// finished. Clients are closed before it returns.
func together(ctx context.Context, addrs []string, sessionTimeout time.Duration, work func(ctx context.Context, c *framework.Client) error) (time.Duration, error) {
	var clients []*framework.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for _, a := range addrs {
		c, err := connect(ctx, a, sessionTimeout)
		if err != nil {
			return 0, err
		}
		clients = append(clients, c)
	}
	errs := make(chan error, len(clients))
	began := time.Now()
	for _, c := range clients {
		go func() { errs <- work(ctx, c) }()
	}
	var first error
	for range clients {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return time.Since(began), first
}

// repeated returns n copies of addr: one session per copy.
func repeated(addr string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = addr
	}
	return out
}
