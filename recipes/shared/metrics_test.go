package shared_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/shared"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Every TrySet of a started count or value is counted once by its result;
// one on a closed count is not.
func TestTrySetMetricsCountAScriptedRun(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	ctx := zktest.TestContext(t)
	rec := metricstest.New()
	c := zkclient.New(t, p.Addr(), framework.WithMetrics(rec))
	count, err := shared.NewSharedCount(c, "/metrics/count", 0)
	zktest.Must(t, err)
	zktest.Must(t, count.Start(ctx))
	value, err := shared.NewSharedValue(c, "/metrics/value", nil)
	zktest.Must(t, err)
	zktest.Must(t, value.Start(ctx))
	defer value.Close()

	if ok, err := count.TrySet(ctx, 1, count.VersionedValue().Version); !ok || err != nil {
		t.Fatalf("TrySet on the current version = %v, %v", ok, err)
	}
	if ok, err := count.TrySet(ctx, 2, 0); ok || err != nil {
		t.Fatalf("TrySet on a stale version = %v, %v; want false, nil", ok, err)
	}
	p.LoseNextReply(zktest.OpSetData)
	if _, err := count.TrySet(ctx, 3, count.VersionedValue().Version); !errors.Is(err, shared.ErrOutcomeUnknown) {
		t.Fatalf("TrySet with a lost reply: %v, want ErrOutcomeUnknown", err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := count.TrySet(ended, 4, count.VersionedValue().Version); !errors.Is(err, context.Canceled) {
		t.Fatalf("TrySet with an ended context: %v, want context.Canceled", err)
	}
	if ok, err := value.TrySet(ctx, []byte("v"), value.Value().Version); !ok || err != nil {
		t.Fatalf("SharedValue.TrySet on the current version = %v, %v", ok, err)
	}
	zktest.Must(t, count.Close())
	if _, err := count.TrySet(ctx, 5, 0); !errors.Is(err, shared.ErrClosed) {
		t.Fatalf("TrySet after Close: %v, want ErrClosed", err)
	}

	for result, want := range map[string]float64{"applied": 2, "stale": 1, "unknown": 1, "error": 1} {
		if got := rec.Value(shared.MetricTrySets, "result", result); got != want {
			t.Errorf("%s{result=%s} = %v, want %v", shared.MetricTrySets, result, got, want)
		}
	}
	if p := rec.Problems(); len(p) > 0 {
		t.Errorf("instruments against MetricDescs: %v", p)
	}
}
