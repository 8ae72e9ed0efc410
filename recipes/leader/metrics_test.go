package leader_test

import (
	"context"
	"testing"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Terms begun, their lengths and who leads now are reported exactly: a
// latch hands over once, a selector leads once.
func TestLeaderMetricsCountTerms(t *testing.T) {
	rec := metricstest.New()
	srv := shared.Server(t)
	client := func() *framework.Client {
		return zkclient.New(t, srv.ConnectString(), framework.WithMetrics(rec))
	}
	ctx := zktest.TestContext(t)

	a := startLatch(t, client(), "/metrics/latch", "a")
	await(t, a, 10*time.Second)
	b := startLatch(t, client(), "/metrics/latch", "b")
	if v := rec.Value(leader.MetricLeading, "recipe", "latch"); v != 1 {
		t.Errorf("latches leading with a leading = %v, want 1", v)
	}
	zktest.Must(t, a.Close(ctx))
	await(t, b, 10*time.Second)
	zktest.Must(t, b.Close(ctx))

	ran := make(chan struct{})
	s := newSelector(t, client(), "/metrics/selector", "s", func(ctx context.Context, term leader.Term) error {
		close(ran)
		return nil
	})
	zktest.Must(t, s.Start())
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the selector did not lead within 10 s")
	}
	zktest.Must(t, s.Close(ctx))

	for _, w := range []struct {
		recipe       string
		terms, ended int
	}{{"latch", 2, 2}, {"selector", 1, 1}} {
		if v := rec.Value(leader.MetricTerms, "recipe", w.recipe); v != float64(w.terms) {
			t.Errorf("%s{recipe=%s} = %v, want %d", leader.MetricTerms, w.recipe, v, w.terms)
		}
		if n := rec.Count(leader.MetricTermSeconds, "recipe", w.recipe); n != w.ended {
			t.Errorf("%s{recipe=%s} observed %d terms, want %d", leader.MetricTermSeconds, w.recipe, n, w.ended)
		}
		if v := rec.Value(leader.MetricLeading, "recipe", w.recipe); v != 0 {
			t.Errorf("%s{recipe=%s} = %v after every close, want 0", leader.MetricLeading, w.recipe, v)
		}
	}
	if p := rec.Problems(); len(p) > 0 {
		t.Errorf("instruments against MetricDescs: %v", p)
	}
}
