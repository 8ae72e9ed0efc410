package atomic_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// The counter's node holds Curator's encoding: 8 big-endian bytes.
func TestAtomicLongStoresCuratorBytes(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	l, err := atomic.NewDistributedAtomicLong(c, "/counters/bytes")
	zktest.Must(t, err)

	r, err := l.Get(ctx)
	zktest.Must(t, err)
	if !r.Succeeded || r.PreValue != 0 || r.PostValue != 0 {
		t.Fatalf("Get on a missing node = %+v, want succeeded 0", r)
	}
	r, err = l.Add(ctx, 0x0102030405)
	zktest.Must(t, err)
	if !r.Succeeded || r.PreValue != 0 || r.PostValue != 0x0102030405 {
		t.Fatalf("Add = %+v", r)
	}
	r, err = l.Decrement(ctx)
	zktest.Must(t, err)
	if r.PostValue != 0x0102030404 {
		t.Fatalf("Decrement = %+v", r)
	}
	data, _, err := c.GetData(ctx, "/counters/bytes")
	zktest.Must(t, err)
	if want := []byte{0, 0, 0, 1, 2, 3, 4, 4}; !bytes.Equal(data, want) {
		t.Fatalf("node data %x, want %x", data, want)
	}
	// Curator's encoding written by hand is read back.
	_, err = c.SetData(ctx, "/counters/bytes", binary.BigEndian.AppendUint64(nil, uint64(1<<62)), -1)
	zktest.Must(t, err)
	if r, err = l.Get(ctx); err != nil || r.PostValue != 1<<62 {
		t.Fatalf("Get = %+v, %v; want %d", r, err, int64(1<<62))
	}
}

func TestAtomicLongOperations(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	l, err := atomic.NewDistributedAtomicLong(c, "/counters/ops")
	zktest.Must(t, err)

	created, err := l.Initialize(ctx, 10)
	zktest.Must(t, err)
	if !created {
		t.Fatal("Initialize on a missing node did not create it")
	}
	if created, err = l.Initialize(ctx, 99); err != nil || created {
		t.Fatalf("second Initialize = %v, %v; want false", created, err)
	}
	r, err := l.CompareAndSet(ctx, 11, 20)
	zktest.Must(t, err)
	if r.Succeeded || r.PreValue != 10 {
		t.Fatalf("CompareAndSet with a wrong expectation = %+v", r)
	}
	r, err = l.CompareAndSet(ctx, 10, 20)
	zktest.Must(t, err)
	if !r.Succeeded || r.PreValue != 10 || r.PostValue != 20 {
		t.Fatalf("CompareAndSet = %+v", r)
	}
	r, err = l.TrySet(ctx, -5)
	zktest.Must(t, err)
	if !r.Succeeded || r.PreValue != 20 || r.PostValue != -5 {
		t.Fatalf("TrySet = %+v", r)
	}
	r, err = l.Subtract(ctx, 5)
	zktest.Must(t, err)
	if !r.Succeeded || r.PostValue != -10 || r.Stats.OptimisticTries != 1 {
		t.Fatalf("Subtract = %+v", r)
	}
	zktest.Must(t, l.ForceSet(ctx, 7))
	if r, err = l.Increment(ctx); err != nil || r.PostValue != 8 {
		t.Fatalf("Increment after ForceSet = %+v, %v", r, err)
	}
	// A missing node never matches CompareAndSet.
	other, err := atomic.NewDistributedAtomicLong(c, "/counters/ops-missing")
	zktest.Must(t, err)
	if r, err = other.CompareAndSet(ctx, 0, 1); err != nil || r.Succeeded {
		t.Fatalf("CompareAndSet on a missing node = %+v, %v", r, err)
	}
	zktest.Must(t, other.ForceSet(ctx, 3))
	if r, err = other.Get(ctx); err != nil || r.PostValue != 3 {
		t.Fatalf("Get after ForceSet on a missing node = %+v, %v", r, err)
	}
}

func TestAtomicValueBytes(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())
	v, err := atomic.NewDistributedAtomicValue(c, "/values/raw")
	zktest.Must(t, err)
	r, err := v.Get(ctx)
	zktest.Must(t, err)
	if r.PreValue != nil {
		t.Fatalf("Get on a missing node = %q, want nil", r.PreValue)
	}
	r, err = v.TrySet(ctx, []byte("one"))
	zktest.Must(t, err)
	if !r.Succeeded || r.PreValue != nil || string(r.PostValue) != "one" {
		t.Fatalf("TrySet = %+v", r)
	}
	r, err = v.CompareAndSet(ctx, []byte("one"), []byte("two"))
	zktest.Must(t, err)
	if !r.Succeeded || string(r.PreValue) != "one" || string(r.PostValue) != "two" {
		t.Fatalf("CompareAndSet = %+v", r)
	}
	data, _, err := c.GetData(ctx, "/values/raw")
	zktest.Must(t, err)
	if string(data) != "two" {
		t.Fatalf("node data %q, want the raw bytes %q", data, "two")
	}
}

func TestAtomicBadInput(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	c := zkclient.New(t, srv.ConnectString())

	if _, err := atomic.NewDistributedAtomicLong(nil, "/x"); !errors.Is(err, atomic.ErrInvalidArgument) || !strings.Contains(err.Error(), "nil client") {
		t.Errorf("nil client: %v", err)
	}
	if _, err := atomic.NewDistributedAtomicLong(c, "no-slash"); !errors.Is(err, atomic.ErrInvalidArgument) || !errors.Is(err, framework.ErrInvalidPath) || !strings.Contains(err.Error(), "no-slash") {
		t.Errorf("bad path: %v", err)
	}
	// The root is refused as the other recipes refuse it.
	if _, err := atomic.NewDistributedAtomicLong(c, "/"); !errors.Is(err, atomic.ErrInvalidArgument) || !strings.Contains(err.Error(), `"/"`) {
		t.Errorf("the root as the value's path: %v", err)
	}
	if _, err := atomic.NewDistributedAtomicValue(c, "/x", atomic.WithPromotedToLock(atomic.PromotedToLock{LockPath: "/"})); !errors.Is(err, atomic.ErrInvalidArgument) || !strings.Contains(err.Error(), `"/"`) {
		t.Errorf("the root as the lock path: %v", err)
	}
	if _, err := atomic.NewDistributedAtomicValue(c, "/x", atomic.WithRetryPolicy(nil)); !errors.Is(err, retry.ErrInvalidPolicy) {
		t.Errorf("nil policy: %v", err)
	}
	if _, err := atomic.NewDistributedAtomicValue(c, "/x", atomic.WithPromotedToLock(atomic.PromotedToLock{LockPath: "/x"})); !errors.Is(err, atomic.ErrInvalidArgument) {
		t.Errorf("lock path equal to the value path: %v", err)
	}
	if _, err := atomic.NewDistributedAtomicValue(c, "/x", atomic.WithPromotedToLock(atomic.PromotedToLock{LockPath: "bad//"})); !errors.Is(err, framework.ErrInvalidPath) {
		t.Errorf("bad lock path: %v", err)
	}

	// A node holding bytes of the wrong length is an error naming the length,
	// and is left as it was.
	_, err := c.Create(ctx, "/counters/bad", []byte{1, 2, 3}, framework.CreatingParentsIfNeeded())
	zktest.Must(t, err)
	l, err := atomic.NewDistributedAtomicLong(c, "/counters/bad")
	zktest.Must(t, err)
	if _, err := l.Get(ctx); !errors.Is(err, atomic.ErrBadValue) || !strings.Contains(err.Error(), "3 bytes") {
		t.Errorf("Get of 3 bytes: %v", err)
	}
	if r, err := l.Increment(ctx); !errors.Is(err, atomic.ErrBadValue) || r.Succeeded {
		t.Errorf("Increment of 3 bytes: %+v, %v", r, err)
	}
	data, _, err := c.GetData(ctx, "/counters/bad")
	zktest.Must(t, err)
	if !bytes.Equal(data, []byte{1, 2, 3}) {
		t.Errorf("bad node rewritten to %x", data)
	}
}

// Many clients increment one counter; with the promoted lock every
// increment succeeds and the total is exact.
func TestAtomicLongConcurrentIncrementsExact(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const clients, each = 4, 25
	promoted := atomic.WithPromotedToLock(atomic.PromotedToLock{
		LockPath:    "/counters/exact-lock",
		RetryPolicy: retry.NTimes{N: 20, Sleep: time.Millisecond},
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var promotedTries int
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		l, err := atomic.NewDistributedAtomicLong(zkclient.New(t, srv.ConnectString()), "/counters/exact",
			atomic.WithRetryPolicy(retry.NTimes{N: 1, Sleep: time.Millisecond}), promoted)
		zktest.Must(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				r, err := l.Increment(ctx)
				if err == nil && !r.Succeeded {
					err = errors.New("increment did not succeed")
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				promotedTries += r.Stats.PromotedLockTries
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := zkclient.New(t, srv.ConnectString())
	l, err := atomic.NewDistributedAtomicLong(c, "/counters/exact")
	zktest.Must(t, err)
	r, err := l.Get(ctx)
	zktest.Must(t, err)
	if r.PostValue != clients*each {
		t.Fatalf("counter = %d, want %d", r.PostValue, clients*each)
	}
	if promotedTries == 0 {
		t.Error("no increment was promoted to the lock under contention")
	}
	kids, _, err := c.Children(ctx, "/counters/exact-lock")
	if err == nil && len(kids) != 0 {
		t.Errorf("lock nodes left behind: %v", kids)
	}
}

// Without retries, a conflicting update reports Succeeded false and nil
// error, and did not apply.
func TestAtomicLongConflictNotApplied(t *testing.T) {
	srv := zktest.StartServer(t)
	ctx := zktest.TestContext(t)
	const clients, each = 4, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	succeeded, failed := 0, 0
	for i := 0; i < clients; i++ {
		l, err := atomic.NewDistributedAtomicLong(zkclient.New(t, srv.ConnectString()), "/counters/conflict",
			atomic.WithRetryPolicy(retry.NTimes{N: 0}))
		zktest.Must(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				r, err := l.Increment(ctx)
				mu.Lock()
				switch {
				case err != nil:
					t.Error(err)
				case r.Succeeded:
					succeeded++
				default:
					failed++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	l, err := atomic.NewDistributedAtomicLong(zkclient.New(t, srv.ConnectString()), "/counters/conflict")
	zktest.Must(t, err)
	r, err := l.Get(ctx)
	zktest.Must(t, err)
	if r.PostValue != int64(succeeded) {
		t.Fatalf("counter = %d, want the %d succeeded increments (%d failed)", r.PostValue, succeeded, failed)
	}
	t.Logf("%d succeeded, %d conflicted", succeeded, failed)
}
