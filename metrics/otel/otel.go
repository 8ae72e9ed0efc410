// Package otel reports zkcurator's metrics (framework.MetricDescs) through
// an OpenTelemetry Meter:
//
//	m, err := otel.New(provider.Meter("github.com/zkcurator/zkcurator"))
//	client, err := framework.NewClient(servers, policy, framework.WithMetrics(m))
//
// Counters become Float64Counters, histograms Float64Histograms (in
// seconds) and gauges Float64UpDownCounters. It is a module of its own, so
// that the core keeps its dependencies.
package otel

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/zkcurator/zkcurator/framework"
)

// Metrics is a framework.Metrics over the instruments it made with a Meter,
// one per metric of framework.MetricDescs.
type Metrics struct {
	counters   map[string]metric.Float64Counter
	histograms map[string]metric.Float64Histogram
	gauges     map[string]metric.Float64UpDownCounter
}

// New makes an instrument with meter for every zkcurator metric (those
// framework.MetricDescs lists when it is called, which from main on include
// every linked recipe package's).
func New(meter metric.Meter) (*Metrics, error) {
	if meter == nil {
		return nil, fmt.Errorf("otel: nil Meter")
	}
	m := &Metrics{
		counters:   make(map[string]metric.Float64Counter),
		histograms: make(map[string]metric.Float64Histogram),
		gauges:     make(map[string]metric.Float64UpDownCounter),
	}
	for _, d := range framework.MetricDescs() {
		var err error
		switch d.Kind {
		case framework.CounterKind:
			m.counters[d.Name], err = meter.Float64Counter(d.Name, metric.WithDescription(d.Help))
		case framework.HistogramKind:
			m.histograms[d.Name], err = meter.Float64Histogram(d.Name, metric.WithDescription(d.Help), metric.WithUnit("s"))
		case framework.GaugeKind:
			m.gauges[d.Name], err = meter.Float64UpDownCounter(d.Name, metric.WithDescription(d.Help))
		default:
			err = fmt.Errorf("unknown kind %d", d.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("otel: instrument %s: %w", d.Name, err)
		}
	}
	return m, nil
}

// Counter implements framework.Metrics; a metric that framework.MetricDescs
// does not list gets an instrument that records nothing.
func (m *Metrics) Counter(name string, labels ...framework.Label) framework.Counter {
	if c, ok := m.counters[name]; ok {
		return counter{c, metric.WithAttributeSet(attributes(labels))}
	}
	return framework.NopMetrics{}.Counter(name)
}

// Histogram implements framework.Metrics, as Counter.
func (m *Metrics) Histogram(name string, labels ...framework.Label) framework.Histogram {
	if h, ok := m.histograms[name]; ok {
		return histogram{h, metric.WithAttributeSet(attributes(labels))}
	}
	return framework.NopMetrics{}.Histogram(name)
}

// Gauge implements framework.Metrics, as Counter.
func (m *Metrics) Gauge(name string, labels ...framework.Label) framework.Gauge {
	if g, ok := m.gauges[name]; ok {
		return gauge{g, metric.WithAttributeSet(attributes(labels))}
	}
	return framework.NopMetrics{}.Gauge(name)
}

func attributes(labels []framework.Label) attribute.Set {
	kvs := make([]attribute.KeyValue, len(labels))
	for i, l := range labels {
		kvs[i] = attribute.String(l.Name, l.Value)
	}
	return attribute.NewSet(kvs...)
}

type counter struct {
	c   metric.Float64Counter
	opt metric.MeasurementOption
}

func (c counter) Add(v float64) { c.c.Add(context.Background(), v, c.opt) }

type histogram struct {
	h   metric.Float64Histogram
	opt metric.MeasurementOption
}

func (h histogram) Observe(v float64) { h.h.Record(context.Background(), v, h.opt) }

type gauge struct {
	g   metric.Float64UpDownCounter
	opt metric.MeasurementOption
}

func (g gauge) Add(v float64) { g.g.Add(context.Background(), v, g.opt) }
