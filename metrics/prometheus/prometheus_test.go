package prometheus_test

import (
	"context"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/goleak"

	"github.com/zkcurator/zkcurator/framework"
	zkprom "github.com/zkcurator/zkcurator/metrics/prometheus"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/testing/metricstest"
	"github.com/zkcurator/zkcurator/testing/zktest"
	"github.com/zkcurator/zkcurator/testing/zktest/zkclient"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scrape returns the value of the series of name whose labels include
// want: a counter's or gauge's value, or a histogram's sample count.
func scrape(t *testing.T, reg *prom.Registry, name string, want map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if got[k] != v {
					continue series
				}
			}
			return value(m)
		}
	}
	return 0
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

// After a scripted run (acquire, contend, lose a session) the registry holds
// the expected counts.
func TestScrapeAfterAScriptedRun(t *testing.T) {
	srv := zktest.StartServer(t)
	p := zktest.StartProxy(t, srv.ConnectString())
	reg := prom.NewRegistry()
	m, err := zkprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const path = "/scraped"
	a := built(locks.NewInterProcessMutex(zkclient.New(t, srv.ConnectString(), framework.WithMetrics(m)), path))
	bClient := zkclient.New(t, p.Addr(), framework.WithMetrics(m), framework.WithSessionTimeout(4*time.Second))
	b := built(locks.NewInterProcessMutex(bClient, path))

	metricstest.HandOff(t, ctx, srv, a, b)
	p.Pause() // b's session: SUSPENDED, then LOST by the simulated expiry
	zktest.Eventually(t, 20*time.Second, "b's client to declare its session lost", func() bool {
		return scrape(t, reg, framework.MetricConnectionStates, map[string]string{"state": "LOST"}) == 1
	})
	p.Resume()
	if err := b.Release(ctx); err != nil {
		t.Logf("release after the loss: %v", err)
	}

	for _, w := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{locks.MetricAcquisitions, map[string]string{"recipe": "mutex", "result": "acquired"}, 2},
		{locks.MetricHandoffs, map[string]string{"recipe": "mutex"}, 1},
		{locks.MetricLost, map[string]string{"recipe": "mutex"}, 1},
		{locks.MetricWaitSeconds, map[string]string{"recipe": "mutex"}, 2},
		{locks.MetricHoldSeconds, map[string]string{"recipe": "mutex"}, 2},
		{framework.MetricConnectionStates, map[string]string{"state": "CONNECTED"}, 2},
		{framework.MetricConnectionStates, map[string]string{"state": "LOST"}, 1},
	} {
		if v := scrape(t, reg, w.name, w.labels); v != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, v, w.want)
		}
	}
	// At least the pause's; a loaded machine can starve a read into another.
	suspended := map[string]string{"state": "SUSPENDED"}
	if v := scrape(t, reg, framework.MetricConnectionStates, suspended); v < 1 {
		t.Errorf("%s%v = %v, want at least 1", framework.MetricConnectionStates, suspended, v)
	}
}

// Registering twice with one registry is an error that names the metric.
func TestNewRefusesASecondRegistration(t *testing.T) {
	reg := prom.NewRegistry()
	if _, err := zkprom.New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := zkprom.New(reg); err == nil {
		t.Fatal("a second New on one registry succeeded")
	}
	if _, err := zkprom.New(nil); err == nil {
		t.Fatal("New(nil) succeeded")
	}
}
