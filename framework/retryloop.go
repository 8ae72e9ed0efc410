package framework

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/retry"
)

// RetryLoop runs fn until it succeeds, fails with an error retry.IsRetryable rejects,
// the retry policy gives up, or ctx ends, as Curator's RetryLoop. Before each attempt it
// waits up to the connection timeout for a connection (a timeout is an ErrNotConnected
// that counts as a retryable connection loss). The elapsed time the policy sees counts
// from before the first attempt, its wait for a connection included. It returns fn's
// last error, joined with ctx's error when ctx ended; ctx bounds the whole call.
func (c *Client) RetryLoop(ctx context.Context, fn func(ctx context.Context) error) error {
	if c.nsErr != nil {
		return c.nsErr
	}
	return c.core.retryLoop(ctx, "", "", func(ctx context.Context, _ *zk.Conn, _ int) error {
		return fn(ctx)
	})
}

// attemptFunc is one attempt of an operation on a connected conn; attempt counts from 0.
type attemptFunc func(ctx context.Context, conn *zk.Conn, attempt int) error

// retryLoop runs attempt under the retry policy, stopped by ctx, and records the whole
// run as operation op (none when op is ""). The policy's elapsed time counts from
// before the first attempt, its wait for a connection included, as Curator's
// RetryLoop does. Errors are returned as they are (the last one named with the
// number of attempts when the policy gives up); callers wrap them with the operation
// and path.
func (k *core) retryLoop(ctx context.Context, op, ns string, attempt attemptFunc) (err error) {
	began := time.Now()
	if op != "" {
		defer func() { k.met.operation(op, began, err) }()
	}
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		conn, err := k.waitReady(ctx, k.cfg.connectionTimeout, false)
		if err == nil {
			err = k.prepare(ctx, conn, ns)
		}
		if err == nil {
			err = attempt(ctx, conn, n)
		}
		if err == nil {
			return nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			return errors.Join(err, ctxErr)
		}
		if k.isClosing() && (retry.IsRetryable(err) || errors.Is(err, zk.ErrClosing)) {
			return closedError{last: err}
		}
		if !retry.IsRetryable(err) {
			return err
		}
		sleep, ok := k.cfg.policy.AllowRetry(n, time.Since(began))
		if !ok {
			return wrapf(err, "retry policy gave up after attempt %d (%v since the first began)", n+1, time.Since(began).Round(time.Millisecond))
		}
		sleep = max(sleep, 0)
		k.met.retries.Add(1)
		k.log.Debug("retrying after a retryable error", zap.Int("attempt", n+1), zap.Duration("sleep", sleep), zap.Error(err))
		if serr := sleepCtx(ctx, k.closing, sleep); errors.Is(serr, ErrClosed) {
			return closedError{last: err}
		} else if serr != nil {
			return errors.Join(err, serr)
		}
	}
}

// isClosing reports whether Close has begun.
func (k *core) isClosing() bool {
	select {
	case <-k.closing:
		return true
	default:
		return false
	}
}

// sleepCtx sleeps for d unless ctx ends (its error) or the client closes (ErrClosed).
func sleepCtx(ctx context.Context, closing <-chan struct{}, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-closing:
		return ErrClosed
	}
}

// result is the outcome of a go-zookeeper call run by call.
type result[T any] struct {
	val T
	err error
}

// call runs fn (a go-zookeeper request, which takes no ctx) on a goroutine and waits for
// it or for ctx, so that a cancelled ctx returns promptly; the request may still complete
// on the server. When ctx ends first, pending delivers fn's eventual outcome.
func call[T any](ctx context.Context, k *core, fn func() (T, error)) (r result[T], pending <-chan result[T]) {
	if err := ctx.Err(); err != nil {
		r.err = err
		return r, nil
	}
	ch := make(chan result[T], 1)
	if !k.spawn(func() {
		v, err := fn()
		ch <- result[T]{val: v, err: err}
	}) {
		r.err = ErrClosed
		return r, nil
	}
	select {
	case r = <-ch:
		return r, nil
	case <-ctx.Done():
		r.err = fmt.Errorf("%w (the request may still complete on the server)", ctx.Err())
		return r, ch
	}
}

// do is call for requests whose late outcome does not matter.
func do[T any](ctx context.Context, k *core, fn func() (T, error)) (T, error) {
	r, _ := call(ctx, k, fn)
	return r.val, r.err
}
