package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/campaign/internal/ensemble"
)

// held is a lock hold or an election term: its fencing token, the channel
// that closes when it is lost, and how to give it up.
type held struct {
	token   int64
	lost    <-chan struct{}
	release func(context.Context) error
}

// holdAndWrite takes the lock or wins the term, reads the fence and the
// counter, and on WRITE writes with what it read.
func holdAndWrite(o *out, c *framework.Client, cfg config) error {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.acquire+4*cfg.session)
	defer cancel()
	h, err := take(ctx, c, cfg)
	if err != nil {
		return err
	}
	o.say("HELD %d %d", h.token, c.SessionTimeout().Milliseconds())
	go func() {
		<-h.lost
		o.say("LOST")
	}()
	fence, fenceStat, err := ensemble.ReadInt(ctx, c, cfg.fence)
	if err == nil {
		var count int64
		var countStat *zk.Stat
		count, countStat, err = ensemble.ReadInt(ctx, c, cfg.counter)
		if err == nil {
			o.say("HOLD %d %d %d", h.token, fence, count)
			err = awaitWrite(ctx, o, c, h.token, fence, fenceStat, count, countStat, cfg)
		}
	}
	relCtx, relCancel := context.WithTimeout(context.Background(), 2*cfg.session)
	defer relCancel()
	if rerr := h.release(relCtx); rerr != nil && err == nil {
		err = fmt.Errorf("release: %w", rerr)
	}
	o.say("DONE")
	return err
}

// take acquires the mutex or the write lock, or wins a term, within
// cfg.acquire.
func take(ctx context.Context, c *framework.Client, cfg config) (held, error) {
	switch cfg.mode {
	case "latch":
		return lead(ctx, c, cfg)
	case "selector":
		return selected(ctx, c, cfg)
	}
	m, err := mutex(c, cfg)
	if err != nil {
		return held{}, err
	}
	ok, err := m.TryAcquire(ctx, cfg.acquire)
	if err != nil {
		return held{}, fmt.Errorf("acquire %s: %w", cfg.lock, err)
	}
	if !ok {
		return held{}, fmt.Errorf("acquire %s: not within %v", cfg.lock, cfg.acquire)
	}
	return held{token: m.FencingToken(), lost: m.Lost(), release: m.Release}, nil
}

// mutex is the mutex, the TTL mutex or the write lock at cfg.lock.
func mutex(c *framework.Client, cfg config) (*locks.InterProcessMutex, error) {
	switch cfg.mode {
	case "rwlock":
		rw, err := locks.NewInterProcessReadWriteLock(c, cfg.lock)
		if err != nil {
			return nil, err
		}
		return rw.WriteLock(), nil
	case "ttl":
		d, err := locks.NewPersistentTTLLockInternalsDriver(cfg.ttl, locks.WithProtectedID(protection.NewID()))
		if err != nil {
			return nil, err
		}
		return locks.NewInterProcessMutex(c, cfg.lock, locks.WithDriver(d))
	}
	return locks.NewInterProcessMutex(c, cfg.lock)
}

// lead joins the LeaderLatch election at cfg.lock and awaits a term.
func lead(ctx context.Context, c *framework.Client, cfg config) (held, error) {
	l, err := leader.NewLeaderLatch(c, cfg.lock, "frozen")
	if err != nil {
		return held{}, err
	}
	if err := l.Start(); err != nil {
		return held{}, err
	}
	actx, cancel := context.WithTimeout(ctx, cfg.acquire)
	defer cancel()
	t, err := l.Await(actx)
	if err != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 2*cfg.session)
		defer cancel()
		_ = l.Close(cctx)
		return held{}, fmt.Errorf("lead %s: %w", cfg.lock, err)
	}
	return held{token: t.Token, lost: t.Done(), release: l.Close}, nil
}

// selected runs a LeaderSelector at cfg.lock whose function hands its term
// over and returns once the term is given up or ends.
func selected(ctx context.Context, c *framework.Client, cfg config) (held, error) {
	s, err := ensemble.StartSelector(c, cfg.lock, "frozen")
	if err != nil {
		return held{}, err
	}
	select {
	case t := <-s.Terms:
		return held{token: t.Token, lost: t.Done(), release: s.StepDown}, nil
	case <-ctx.Done():
		cctx, cancel := context.WithTimeout(context.Background(), 2*cfg.session)
		defer cancel()
		_ = s.StepDown(cctx)
		return held{}, fmt.Errorf("lead %s: not within %v", cfg.lock, cfg.acquire)
	}
}

// awaitWrite waits for WRITE on standard input and then writes, conditional
// on the versions read before.
func awaitWrite(ctx context.Context, o *out, c *framework.Client, token, fence int64, fenceStat *zk.Stat, count int64, countStat *zk.Stat, cfg config) error {
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() || strings.TrimSpace(in.Text()) != "WRITE" {
		return errors.New("standard input ended before WRITE")
	}
	if token <= fence {
		o.say("WROTE rejected-stale")
		return nil
	}
	err := ensemble.FencedWrite(ctx, c, cfg.fence, cfg.counter, cfg.ack, token, fenceStat, count, countStat)
	switch {
	case err == nil:
		o.say("WROTE accepted")
	case errors.Is(err, zk.ErrBadVersion):
		o.say("WROTE rejected-conflict %s", oneLine(err))
	default:
		o.say("WROTE unknown %s", oneLine(err))
	}
	return nil
}
