package framework_test

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
)

// The client reports each operation once with its outcome, each retry, each
// connection state and the time spent in it, exactly, through the
// instruments MetricDescs lists.
func TestMetricsCountOperationsRetriesAndStates(t *testing.T) {
	rec := metricstest.New()
	p := zktest.StartProxy(t, sharedServer(t).ConnectString())
	c, r := startRecorded(t, p.Addr()+","+p.Addr(), framework.WithMetrics(rec), framework.WithSessionTimeout(10*time.Second))
	ctx := testCtx(t)
	root := testRoot(t)

	for range 3 {
		if _, err := c.Exists(ctx, root); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := c.GetData(ctx, root+"/missing"); !errors.Is(err, zk.ErrNoNode) {
		t.Fatalf("GetData of a missing node: %v, want zk.ErrNoNode", err)
	}
	p.LoseNextReply(zktest.OpCreate)
	created, err := c.Create(ctx, root, nil, framework.WithProtection(), framework.WithMode(framework.Ephemeral))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Delete(testCtx(t), created) })
	r.await(t, C, S, R) // the lost reply severed the connection

	for _, want := range []struct {
		op, result string
		n          int
	}{{"exists", "ok", 3}, {"get_data", "error", 1}, {"create", "ok", 1}, {"exists", "error", 0}} {
		if got := rec.Count(framework.MetricOperationSeconds, "op", want.op, "result", want.result); got != want.n {
			t.Errorf("%s{op=%s,result=%s} observed %d times, want %d", framework.MetricOperationSeconds, want.op, want.result, got, want.n)
		}
	}
	if got := rec.Value(framework.MetricRetries); got != 1 {
		t.Errorf("%s = %v, want 1 (the create whose reply was lost)", framework.MetricRetries, got)
	}
	for state, want := range map[string]float64{"CONNECTED": 1, "SUSPENDED": 1, "RECONNECTED": 1, "LOST": 0} {
		if got := rec.Value(framework.MetricConnectionStates, "state", state); got != want {
			t.Errorf("%s{state=%s} = %v, want %v", framework.MetricConnectionStates, state, got, want)
		}
	}
	for _, state := range []string{"CONNECTED", "SUSPENDED"} {
		if got := rec.Value(framework.MetricConnectionStateSeconds, "state", state); got <= 0 {
			t.Errorf("%s{state=%s} = %v, want the time spent there", framework.MetricConnectionStateSeconds, state, got)
		}
	}
	if p := rec.Problems(); len(p) > 0 {
		t.Errorf("instruments against MetricDescs: %v", p)
	}
}

// The list names each metric once, with a kind and a meaning.
func TestMetricDescsAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range framework.MetricDescs() {
		if seen[d.Name] || d.Kind == 0 || d.Help == "" {
			t.Errorf("metric %q: listed twice, or without a kind or help", d.Name)
		}
		seen[d.Name] = true
	}
}
