package locks_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// A scripted run reports exact counts: an uncontended acquisition, one that
// waited and was handed the lock, one that timed out, a hold lost to a
// suspension, and semaphore leases taken and returned.
func TestLockMetricsCountAScriptedRun(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	rec := metricstest.New()
	ctx := zktest.TestContext(t)
	const path = "/metrics/mutex"
	a := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString(), framework.WithMetrics(rec)), path))
	b := built(locks.NewInterProcessMutex(zkclient.New(t, p.Addr(), framework.WithMetrics(rec), framework.WithSessionTimeout(10*time.Second)), path))
	c := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString(), framework.WithMetrics(rec)), path))

	metricstest.HandOff(t, ctx, srv, a, b)
	if ok, err := c.TryAcquire(ctx, 0); ok || err != nil {
		t.Fatalf("TryAcquire while b holds = %v, %v; want false, nil", ok, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	if err := c.Acquire(cctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire while b holds, with a 50 ms context = %v; want context.DeadlineExceeded", err)
	}
	cancel()
	p.Sever() // b's connection: Suspended under the standard policy
	if !closedWithin(b.Lost(), 10*time.Second) {
		t.Fatal("b's Lost did not close on a suspension")
	}
	zktest.Must(t, b.Release(ctx))

	sem := built(locks.NewInterProcessSemaphoreV2(zkclient.New(t, srv.ConnectString(), framework.WithMetrics(rec)), "/metrics/sem", 2))
	leases, err := sem.AcquireN(ctx, 2)
	zktest.Must(t, err)
	if v := rec.Value(locks.MetricLeasesHeld); v != 2 {
		t.Errorf("%s = %v with two leases out, want 2", locks.MetricLeasesHeld, v)
	}
	zktest.Must(t, leases[0].Close(ctx))

	for _, w := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{locks.MetricAcquisitions, []string{"recipe", "mutex", "result", "acquired"}, 2},
		{locks.MetricAcquisitions, []string{"recipe", "mutex", "result", "timeout"}, 1},
		{locks.MetricAcquisitions, []string{"recipe", "mutex", "result", "error"}, 0},
		{locks.MetricAcquisitions, []string{"recipe", "mutex", "result", "cancelled"}, 1},
		{locks.MetricHandoffs, []string{"recipe", "mutex"}, 1},
		{locks.MetricLost, []string{"recipe", "mutex"}, 1},
		{locks.MetricAcquisitions, []string{"recipe", "semaphore", "result", "acquired"}, 1},
		{locks.MetricLeasesHeld, nil, 1},
	} {
		if v := rec.Value(w.name, w.labels...); v != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, v, w.want)
		}
	}
	for _, w := range []struct {
		name   string
		recipe string
		want   int
	}{
		{locks.MetricWaitSeconds, "mutex", 2},
		{locks.MetricHoldSeconds, "mutex", 2},
		{locks.MetricHoldSeconds, "semaphore", 1},
	} {
		if n := rec.Count(w.name, "recipe", w.recipe); n != w.want {
			t.Errorf("%s{recipe=%s} observed %d times, want %d", w.name, w.recipe, n, w.want)
		}
	}
	if p := rec.Problems(); len(p) > 0 {
		t.Errorf("instruments against MetricDescs: %v", p)
	}
	if t.Failed() {
		t.Logf("series: %v", rec.Series())
	}
	zktest.Must(t, leases[1].Close(context.WithoutCancel(ctx)))
}
