package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/queue"
)

// takeFlags are the flags of 'queue take'.
type takeFlags struct {
	count    int
	wait     optionalDuration
	lockPath string
	raw      bool
	kind     string
}

func (f *takeFlags) add(fs *flag.FlagSet) {
	f.count = 1
	fs.Var(positiveInt{&f.count}, "count", "take: take this many items (`N`, at least 1)")
	fs.Var(&f.wait, "wait", "take: give up (status 75) when fewer than --count items were taken within this `duration`, connecting included (status 69 when ZooKeeper was not reached by then); connecting gets at least 1s (default: wait for as long as it takes)")
	fs.StringVar(&f.lockPath, "lock-path", "", "take: lock each item under `LP` while taking it, as Curator's lock safety; every consumer of the queue must use the same lock path")
	fs.BoolVar(&f.raw, "raw", false, "take: print the items' bytes with nothing between them (default: each followed by a newline)")
	fs.StringVar(&f.kind, "type", "plain", "take: the `kind` of queue its producers use, which sets the order: plain (DistributedQueue), id, priority, or delay (an item is not taken before it is due)")
}

func (f *takeFlags) names() []string { return []string{"count", "wait", "lock-path", "raw", "type"} }

// check reports take flags that cannot work, before any network call.
func (f *takeFlags) check(path string) error {
	switch f.kind {
	case "plain", "id", "priority", "delay":
	default:
		return fmt.Errorf("bad --type %q: want plain, id, priority or delay", f.kind)
	}
	if f.lockPath == "" {
		return nil
	}
	if err := checkPath("--lock-path", f.lockPath); err != nil {
		return err
	}
	if f.lockPath == path {
		return fmt.Errorf("bad --lock-path %q: it is the queue path itself", f.lockPath)
	}
	return nil
}

// taker is the consumer of 'queue take': it prints the first count items
// and holds the last one's consumer until the queue closes, so that the
// queue takes no item beyond count (without a lock path an item is deleted
// before its consumer runs). An item beyond count is left on the queue
// with a lock path; without one it is already deleted, so it is printed
// (only a node that a Java producer's putMulti filled with several items
// brings one).
type taker struct {
	out    io.Writer
	raw    bool
	count  int
	locked bool

	mu     sync.Mutex
	n      int
	err    error         // a failed write
	filled chan struct{} // closed at count items, or on a failed write
}

func (t *taker) consume(ctx context.Context, item []byte) error {
	t.mu.Lock()
	if t.err != nil || (t.n >= t.count && t.locked) {
		t.mu.Unlock()
		<-ctx.Done() // leave it: returning after ctx ended keeps the item
		return context.Cause(ctx)
	}
	if !t.raw {
		item = append(item[:len(item):len(item)], '\n')
	}
	if _, err := t.out.Write(item); err != nil {
		t.err = err
		close(t.filled)
		t.mu.Unlock()
		<-ctx.Done()
		return err
	}
	t.n++
	last := t.n == t.count
	if last {
		close(t.filled)
	}
	t.mu.Unlock()
	if last {
		<-ctx.Done() // no other item until the queue is closed
	}
	return nil
}

func (t *taker) taken() (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n, t.err
}

// queueTake takes f.count items from the queue at path and prints them.
func queueTake(ctx context.Context, conn *connFlags, f *takeFlags, path string, out io.Writer) error {
	if err := f.check(path); err != nil {
		return fail(exitUsage, "queue take: %v", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	ctx, stopWatch := interruptible(ctx, sigs)
	defer stopWatch()
	log := newLogger(conn.verbose)
	defer func() { _ = log.Sync() }()
	w := (&holdFlags{wait: f.wait}).newWaitBound(conn.connectTimeout)
	c, err := conn.dialWithin(ctx, log, w.dial, w.flag)
	if err != nil {
		if sig := stopWatch(); sig != nil {
			return fail(signalStatus(sig), "interrupted by %s while connecting to ZooKeeper", signalName(sig))
		}
		return err
	}
	defer closeClient(c, 6*time.Second, log)

	t := &taker{out: out, raw: f.raw, count: f.count, locked: f.lockPath != "", filled: make(chan struct{})}
	opts := []queue.Option{queue.WithConsumer(t.consume)}
	if f.lockPath != "" {
		opts = append(opts, queue.WithLockPath(f.lockPath))
	}
	q, err := newConsumerQueue(c, f.kind, path, opts)
	if err != nil {
		return fail(exitUsage, "queue take: %v", err)
	}
	sctx, cancel := w.acquireContext(ctx)
	err = q.Start(sctx)
	if err == nil {
		// The consumer retries a refused listing in the background: refuse
		// here, where the refusal can be reported.
		_, _, err = c.Children(sctx, path)
	}
	cancel()
	if err != nil && ctx.Err() != nil {
		if sig := stopWatch(); sig != nil { // a signal ended the start, not the server
			_ = q.Close()
			return fail(signalStatus(sig), "queue take: interrupted by %s before any item of %s was taken", signalName(sig), path)
		}
	}
	switch {
	case w.elapsed(err):
		return fail(exitTimeout, "queue take: no item of %s taken within --wait %v", path, f.wait.d)
	case refused(err):
		return noPermission("queue take from "+path, err)
	case err != nil:
		return fail(exitUnavailable, "queue take: %v", err)
	}
	var timeout <-chan time.Time
	if w.set {
		left := w.remaining().d
		if left == 0 {
			left = oneTry // the wait went on connecting: one look at the queue
		}
		timer := time.NewTimer(left)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-t.filled:
	case <-timeout:
	case <-ctx.Done():
	}
	_ = q.Close() // deletes the lock node of an item being taken
	n, werr := t.taken()
	cerr := ctx.Err() // before stopWatch, which ends ctx
	sig := stopWatch()
	switch {
	case werr != nil:
		return fail(exitInternal, "queue take: write: %v (the item is left on the queue with --lock-path, lost without)", werr)
	case n < f.count && sig != nil:
		return fail(signalStatus(sig), "queue take: interrupted by %s after %d of %d items of %s", signalName(sig), n, f.count, path)
	case n < f.count && cerr != nil:
		return cerr
	case n < f.count:
		return fail(exitTimeout, "queue take: %d of %d items of %s taken within --wait %v", n, f.count, path, f.wait.d)
	}
	return nil
}

// newConsumerQueue returns a consumer of the queue at path, of the kind
// its producers use.
func newConsumerQueue(c *framework.Client, kind, path string, opts []queue.Option) (interface {
	Start(context.Context) error
	Close() error
}, error) {
	switch kind {
	case "id":
		return queue.NewDistributedIDQueue(c, path, queue.Bytes(), opts...)
	case "priority":
		return queue.NewDistributedPriorityQueue(c, path, queue.Bytes(), opts...)
	case "delay":
		return queue.NewDistributedDelayQueue(c, path, queue.Bytes(), opts...)
	}
	return queue.NewDistributedQueue(c, path, queue.Bytes(), opts...)
}
