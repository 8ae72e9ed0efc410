package atomic

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/retry"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A scripted run reports exact counts: an update whose two optimistic tries
// conflict and whose promoted try succeeds, one whose promoted lock's wait
// runs out, a CompareAndSet that finds another value, a write whose reply
// is lost, and a failing computation.
func TestUpdateMetricsCountAScriptedRun(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec := metricstest.New()
	const path, lockPath = "/metrics/atomic", "/metrics/atomic-lock"
	c := zkclient.New(t, p.Addr(), framework.WithMetrics(rec))
	v, err := NewDistributedAtomicValue(c, path, WithRetryPolicy(retry.NTimes{N: 1}),
		WithPromotedToLock(PromotedToLock{LockPath: lockPath, MaxLockTime: 200 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewDistributedAtomicLong(zkclient.New(t, srv.ConnectString()), path)
	if err != nil {
		t.Fatal(err)
	}
	// conflicting makes the first n tries of an update conflict: another
	// client increments the node between each try's read and its write.
	conflicting := func(n int) makeFunc {
		tries := 0
		return func([]byte, bool) ([]byte, error) {
			if tries++; tries <= n {
				if r, err := other.Increment(ctx); err != nil || !r.Succeeded {
					t.Fatalf("the conflicting increment: %+v, %v", r, err)
				}
			}
			return encodeLong(100), nil
		}
	}

	if r, err := v.update(ctx, conflicting(2)); err != nil || !r.Succeeded {
		t.Fatalf("update after two conflicts = %+v, %v; want it succeeded under the lock", r, err)
	}
	holder, err := locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString()), lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := v.update(ctx, conflicting(2)); err != nil || r.Succeeded {
		t.Fatalf("update while another holds the promoted lock = %+v, %v; want not succeeded, no error", r, err)
	}
	if err := holder.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := v.CompareAndSet(ctx, []byte("not it"), []byte("x")); err != nil || r.Succeeded {
		t.Fatalf("CompareAndSet against another value = %+v, %v", r, err)
	}
	p.LoseNextReply(zktest.OpSetData, zktest.OpMulti)
	if _, err := v.update(ctx, conflicting(0)); !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("update with a lost reply: %v, want ErrOutcomeUnknown", err)
	}
	broken := errors.New("cannot compute")
	if _, err := v.update(ctx, func([]byte, bool) ([]byte, error) { return nil, broken }); !errors.Is(err, broken) {
		t.Fatalf("update whose computation fails: %v", err)
	}

	for _, w := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{MetricUpdates, []string{"result", "succeeded"}, 1},
		{MetricUpdates, []string{"result", "failed"}, 2},
		{MetricUpdates, []string{"result", "unknown"}, 1},
		{MetricUpdates, []string{"result", "error"}, 1},
		{MetricTries, []string{"phase", "optimistic"}, 2 + 2 + 1 + 1 + 1},
		{MetricTries, []string{"phase", "promoted"}, 1},
		{MetricPromotions, nil, 2},
	} {
		if got := rec.Value(w.name, w.labels...); got != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.want)
		}
	}
	if p := rec.Problems(); len(p) > 0 {
		t.Errorf("instruments against MetricDescs: %v", p)
	}
	if t.Failed() {
		t.Logf("series: %v", rec.Series())
	}
}
