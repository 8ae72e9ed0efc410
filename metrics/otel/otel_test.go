package otel_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	zkotel "github.com/zkcurator/zkcurator/metrics/otel"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func attrKey(k string) attribute.Key { return attribute.Key(k) }

// collect returns the value of the data point of name whose attributes
// include want: a sum's value or a histogram's count.
func collect(t *testing.T, reader *sdkmetric.ManualReader, name string, want map[string]string) float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	matches := func(get func(string) (string, bool)) bool {
		for k, v := range want {
			if got, ok := get(k); !ok || got != v {
				return false
			}
		}
		return true
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					if matches(func(k string) (string, bool) { v, ok := p.Attributes.Value(attrKey(k)); return v.AsString(), ok }) {
						return p.Value
					}
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					if matches(func(k string) (string, bool) { v, ok := p.Attributes.Value(attrKey(k)); return v.AsString(), ok }) {
						return float64(p.Count)
					}
				}
			}
		}
	}
	return 0
}

// An acquisition that waits, its hold and the connection states reach the
// OpenTelemetry reader with the expected values.
func TestCollectAfterAScriptedRun(t *testing.T) {
	srv := zktest.StartServer(t)
	reader := sdkmetric.NewManualReader()
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer provider.Shutdown(context.Background())
	m, err := zkotel.New(provider.Meter("github.com/zkcurator/zkcurator"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString(), framework.WithMetrics(m)), "/collected"))
	b := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString(), framework.WithMetrics(m)), "/collected"))
	metricstest.HandOff(t, ctx, srv, a, b)
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}

	for _, w := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{locks.MetricAcquisitions, map[string]string{"recipe": "mutex", "result": "acquired"}, 2},
		{locks.MetricHandoffs, map[string]string{"recipe": "mutex"}, 1},
		{locks.MetricHoldSeconds, map[string]string{"recipe": "mutex"}, 2},
		{framework.MetricConnectionStates, map[string]string{"state": "CONNECTED"}, 2},
	} {
		if v := collect(t, reader, w.name, w.labels); v != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, v, w.want)
		}
	}
	if _, err := zkotel.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
}
