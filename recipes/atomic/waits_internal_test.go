package atomic

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// waitSlack is how much later than its bound a call may return in these
// tests, beyond the slack the package documents: room for a machine shared
// with other test runs.
const waitSlack = time.Second

// bounded runs call and fails the test unless it returns within bound plus
// waitSlack an error that matches context.DeadlineExceeded (and also
// ErrOutcomeUnknown when unknown is set), says want and carries the
// package's prefix once.
func bounded(t *testing.T, what string, bound time.Duration, want string, unknown bool, call func() error) {
	t.Helper()
	began := time.Now()
	err := call()
	if took := time.Since(began); took > bound+waitSlack {
		t.Errorf("%s took %v, bound %v", what, took, bound)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), want) || errors.Is(err, ErrOutcomeUnknown) != unknown {
		t.Errorf("%s: %v, want context.DeadlineExceeded saying %q (outcome unknown: %v)", what, err, want, unknown)
	}
	zktest.PrefixOnce(t, "atomic: ", what, err)
}

// valueOp is a call of a DistributedAtomicLong that reaches the server,
// with the step its error names and whether a write of it that ctx cut
// short is reported unknown.
type valueOp struct {
	name, step string
	unknown    bool
	call       func(ctx context.Context) error
}

func valueOps(l *DistributedAtomicLong) []valueOp {
	return []valueOp{
		{"Get", "read", false, func(ctx context.Context) error { _, err := l.Get(ctx); return err }},
		{"Increment", "read", false, func(ctx context.Context) error { _, err := l.Increment(ctx); return err }},
		{"CompareAndSet", "read", false, func(ctx context.Context) error { _, err := l.CompareAndSet(ctx, 0, 1); return err }},
		{"TrySet", "read", false, func(ctx context.Context) error { _, err := l.TrySet(ctx, 1); return err }},
		{"ForceSet", "force set", false, func(ctx context.Context) error { return l.ForceSet(ctx, 1) }},
		{"Initialize", "initialize", true, func(ctx context.Context) error { _, err := l.Initialize(ctx, 1); return err }},
	}
}

// Without a server every call returns by its ctx's deadline, and the
// promoted phase within MaxLockTime (plus promotedSlack) under a ctx with
// no deadline, although the client's retry policy would go on for a
// minute; each error says what it waited for.
func TestWaitsAreBoundedWithoutAServer(t *testing.T) {
	c := zkclient.Unreachable(t, zkclient.SlowRetryPolicy)
	const maxLockTime = 2 * time.Second
	l, err := NewDistributedAtomicLong(c, "/waits/counter", WithPromotedToLock(PromotedToLock{LockPath: "/waits/lock", MaxLockTime: maxLockTime}))
	if err != nil {
		t.Fatal(err)
	}
	const wait = 1500 * time.Millisecond
	for _, op := range valueOps(l) {
		bounded(t, op.name, wait, "atomic: "+op.step+" /waits/counter", op.unknown, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			return op.call(ctx)
		})
	}
	bounded(t, "the promoted phase", maxLockTime+promotedSlack, "waiting for the promoted lock /waits/lock (MaxLockTime 2s)", false, func() error {
		var res AtomicValue[[]byte]
		return l.v.underLock(context.Background(), &res, func([]byte, bool) ([]byte, error) { return encodeLong(1), nil })
	})
}

// In a partition the promoted phase ends within MaxLockTime (plus
// promotedSlack), whether the partition begins before the lock is acquired
// or while a write under the lock is under way (which is then unknown).
func TestPromotedPhaseIsBoundedInAPartition(t *testing.T) {
	srv := zktest.StartServer(t)
	proxy := zktest.StartProxy(t, srv.ConnectString())
	c := zkclient.New(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	const maxLockTime = 2 * time.Second
	v, err := NewDistributedAtomicValue(c, "/waits/value", WithPromotedToLock(PromotedToLock{LockPath: "/waits/lock", MaxLockTime: maxLockTime}))
	if err != nil {
		t.Fatal(err)
	}
	// The lock is acquired, the value read, and the partition begins
	// before the write.
	partition := func(cur []byte, _ bool) ([]byte, error) {
		proxy.Pause()
		return []byte("under the lock"), nil
	}
	bounded(t, "a write under the lock", maxLockTime+promotedSlack, "atomic: update /waits/value", true, func() error {
		var res AtomicValue[[]byte]
		return v.underLock(context.Background(), &res, partition)
	})
	// Partitioned before the lock's node is created.
	bounded(t, "the wait for the lock", maxLockTime+promotedSlack, "waiting for the promoted lock /waits/lock", false, func() error {
		var res AtomicValue[[]byte]
		return v.underLock(context.Background(), &res, partition)
	})
	proxy.Resume()
}

// Every call on a closed client fails with the client's ErrClosed, before
// any wait.
func TestCallsOnAClosedClient(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	l, err := NewDistributedAtomicLong(c, "/closed/counter", WithPromotedToLock(PromotedToLock{LockPath: "/closed/lock", MaxLockTime: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, op := range valueOps(l) {
		began := time.Now()
		err := op.call(ctx)
		if !errors.Is(err, framework.ErrClosed) || time.Since(began) > waitSlack {
			t.Errorf("%s on a closed client: %v after %v, want framework.ErrClosed at once", op.name, err, time.Since(began))
		}
		zktest.PrefixOnce(t, "atomic: ", op.name, err)
	}
	var res AtomicValue[[]byte]
	if err := l.v.underLock(ctx, &res, func([]byte, bool) ([]byte, error) { return encodeLong(1), nil }); !errors.Is(err, framework.ErrClosed) {
		t.Errorf("the promoted phase on a closed client: %v, want framework.ErrClosed", err)
	}
}

// A sleep before the next optimistic try ends with ctx, and the error says
// the update was waiting to retry after a conflict.
func TestRetrySleepEndsWithCtx(t *testing.T) {
	srv := zktest.StartServer(t)
	c := zkclient.New(t, srv.ConnectString())
	other, err := NewDistributedAtomicLong(zkclient.New(t, srv.ConnectString()), "/waits/retry")
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewDistributedAtomicValue(c, "/waits/retry", WithRetryPolicy(retry.NTimes{N: 1, Sleep: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := other.Initialize(ctx, 0); err != nil {
		t.Fatal(err)
	}
	// Another client writes between the read and the write: a conflict.
	conflicting := func([]byte, bool) ([]byte, error) {
		if _, err := other.Increment(ctx); err != nil {
			return nil, err
		}
		return encodeLong(100), nil
	}
	const wait = 1500 * time.Millisecond
	bounded(t, "an update sleeping to retry", wait, "atomic: update /waits/retry: waiting 1m0s to retry after a conflict", false, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		_, err := v.update(ctx, conflicting)
		return err
	})
}
