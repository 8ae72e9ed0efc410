package locks_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A wait means the whole wait: every timed acquisition returns within its
// wait plus the documented graces (at most a second for a request under way
// on a connection the client still believes live, and as much for its
// clean-up), connecting and retries included. (wait_bound_test.go holds a
// client that knows it has no connection to its wait alone.)

// timedSlack is the documented graces of a timed acquisition, plus a margin
// for a loaded machine.
const timedSlack = 2*time.Second + 500*time.Millisecond

// timedAcquisitions are the timed acquisitions of every lock on c, each
// reporting whether it got the lock.
func timedAcquisitions(c *framework.Client, base string) map[string]func(context.Context, time.Duration) (bool, error) {
	rw := built(locks.NewInterProcessReadWriteLock(c, base+"/rw"))
	sem := built(locks.NewInterProcessSemaphoreV2(c, base+"/sem", 2))
	multi := built(locks.NewInterProcessMultiLock(built(locks.NewInterProcessMutex(c, base+"/multi/a")), built(locks.NewInterProcessMutex(c, base+"/multi/b"))))
	return map[string]func(context.Context, time.Duration) (bool, error){
		"mutex":           built(locks.NewInterProcessMutex(c, base+"/mutex")).TryAcquire,
		"read lock":       rw.ReadLock().TryAcquire,
		"write lock":      rw.WriteLock().TryAcquire,
		"semaphore mutex": built(locks.NewInterProcessSemaphoreMutex(c, base+"/semmutex")).TryAcquire,
		"multi-lock":      multi.TryAcquire,
		"semaphore": func(ctx context.Context, wait time.Duration) (bool, error) {
			leases, err := sem.TryAcquire(ctx, 1, wait)
			return leases != nil, err
		},
	}
}

type timedResult struct {
	name string
	ok   bool
	err  error
	took time.Duration
}

// runTimed runs every acquisition at once with wait, none of which may get
// its lock, and fails the test for any that returns later than wait and the
// slack; it returns their results.
func runTimed(t *testing.T, acquisitions map[string]func(context.Context, time.Duration) (bool, error), wait time.Duration) []timedResult {
	t.Helper()
	ctx := zktest.TestContext(t)
	got := make(chan timedResult, len(acquisitions))
	for name, try := range acquisitions {
		go func() {
			start := time.Now()
			ok, err := try(ctx, wait)
			got <- timedResult{name, ok, err, time.Since(start)}
		}()
	}
	results := make([]timedResult, 0, len(acquisitions))
	for range acquisitions {
		select {
		case r := <-got:
			t.Logf("%s: TryAcquire(%v) = %v, %v after %v", r.name, wait, r.ok, r.err, r.took)
			switch {
			case r.took > wait+timedSlack:
				t.Errorf("%s: TryAcquire(%v) took %v", r.name, wait, r.took)
			case r.ok:
				t.Errorf("%s: TryAcquire got a lock it should not", r.name)
			}
			assertPrefixOnce(t, r.err)
			results = append(results, r)
		case <-time.After(wait + time.Minute):
			t.Fatalf("a timed acquisition with a wait of %v still runs after a minute more", wait)
		}
	}
	return results
}

// The README's quick start (ExponentialBackoff 1 s x 3) against an address
// where nothing listens: every timed acquisition returns within its wait
// and the slack, with an error that says it timed out waiting for a
// connection.
func TestTimedAcquireAgainstNothingReturnsWithinItsWait(t *testing.T) {
	c := zkclient.Unreachable(t, retry.ExponentialBackoff{BaseSleep: time.Second, MaxRetries: 3})
	const wait = 2 * time.Second
	for _, r := range runTimed(t, timedAcquisitions(c, "/timed/nothing"), wait) {
		if !errors.Is(r.err, context.DeadlineExceeded) || !strings.Contains(r.err.Error(), "timed out after") || !strings.Contains(r.err.Error(), "waiting for a connection") {
			t.Errorf("%s: TryAcquire = %v; want an error matching context.DeadlineExceeded that says it timed out waiting for a connection", r.name, r.err)
		}
	}
}

// Waiters partitioned from the server while they wait for a held lock
// return within their wait and the slack (their clean-up does not wait for
// the link); their nodes go once the link is back.
func TestTimedAcquireDuringAPartitionReturnsWithinItsWait(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const base = "/timed/partition"
	admin := zkclient.New(t, srv.ConnectString())
	holders := []locks.Lock{
		built(locks.NewInterProcessMutex(admin, base+"/mutex")),
		built(locks.NewInterProcessSemaphoreMutex(admin, base+"/semmutex")),
		built(locks.NewInterProcessMutex(admin, base+"/multi/b")),
	}
	for _, h := range holders {
		zktest.Must(t, h.Acquire(ctx))
	}
	p := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, p.Addr(), framework.WithSessionTimeout(8*time.Second))
	waiters := map[string]func(context.Context, time.Duration) (bool, error){
		"mutex":           built(locks.NewInterProcessMutex(c, base+"/mutex")).TryAcquire,
		"semaphore mutex": built(locks.NewInterProcessSemaphoreMutex(c, base+"/semmutex")).TryAcquire,
		"multi-lock":      built(locks.NewInterProcessMultiLock(built(locks.NewInterProcessMutex(c, base+"/multi/a")), built(locks.NewInterProcessMutex(c, base+"/multi/b")))).TryAcquire,
	}
	const wait = 3 * time.Second
	queued := []string{base + "/mutex", base + "/semmutex/leases", base + "/multi/b"}
	go func() {
		defer p.Pause()
		// The partition starts once every waiter queues behind its holder.
		deadline := time.Now().Add(wait / 2)
		for time.Now().Before(deadline) {
			all := true
			for _, q := range queued {
				children, err := childNames(context.Background(), admin, q)
				all = all && err == nil && len(children) == 2
			}
			if all {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	runTimed(t, waiters, wait)
	p.Resume()
	for _, q := range queued {
		awaitCount(t, admin, q, 1)
	}
	awaitChildren(t, admin, base+"/multi/a")
	for _, h := range holders {
		zktest.Must(t, h.Release(ctx))
	}
}
