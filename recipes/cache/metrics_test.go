package cache_test

import (
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

// Every event a cache emits is counted once, by cache and type.
func TestCacheMetricsCountEveryEvent(t *testing.T) {
	srv := zktest.StartServer(t)
	rec := metricstest.New()
	c := zkclient.New(t, srv.ConnectString(), framework.WithMetrics(rec))
	ctx := testCtx(t)
	_, err := c.Create(ctx, "/counted/a", nil, framework.CreatingParentsIfNeeded())
	must(t, err)
	tc := startTree(t, c, "/counted")
	ev := tc.Events()
	expect(t, ev, "NODE_ADDED /counted", "NODE_ADDED /counted/a", "INITIALIZED")
	_, err = c.SetData(ctx, "/counted/a", []byte("1"), -1)
	must(t, err)
	expect(t, ev, "NODE_UPDATED /counted/a")
	must(t, c.Delete(ctx, "/counted/a"))
	expect(t, ev, "NODE_REMOVED /counted/a")

	for typ, want := range map[string]float64{"NODE_ADDED": 2, "INITIALIZED": 1, "NODE_UPDATED": 1, "NODE_REMOVED": 1, "CONNECTION_LOST": 0} {
		if v := rec.Value(cache.MetricEvents, "cache", "tree", "type", typ); v != want {
			t.Errorf("%s{cache=tree,type=%s} = %v, want %v", cache.MetricEvents, typ, v, want)
		}
	}
	if p := rec.Problems(); len(p) > 0 {
		t.Errorf("instruments against MetricDescs: %v", p)
	}
}
