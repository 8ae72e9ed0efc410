// Package prometheus reports zkcurator's metrics (framework.MetricDescs) to
// a Prometheus registry:
//
//	m, err := prometheus.New(prom.DefaultRegisterer)
//	client, err := framework.NewClient(servers, policy, framework.WithMetrics(m))
//
// It is a module of its own, so that the core keeps its dependencies.
package prometheus

import (
	"fmt"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/zkcurator/zkcurator/framework"
)

// DefaultBuckets are the histogram buckets in seconds, 0.5 ms to about 16 s.
var DefaultBuckets = prom.ExponentialBuckets(0.0005, 2, 16)

// Metrics is a framework.Metrics whose instruments are series of the
// collectors it registered, one per metric of framework.MetricDescs.
type Metrics struct {
	counters   map[string]*prom.CounterVec
	histograms map[string]*prom.HistogramVec
	gauges     map[string]*prom.GaugeVec
}

// Option configures New.
type Option func(*options)

type options struct{ buckets []float64 }

// WithBuckets sets the buckets of every histogram (default DefaultBuckets).
func WithBuckets(b []float64) Option { return func(o *options) { o.buckets = b } }

// New registers a collector for every zkcurator metric with reg (those
// framework.MetricDescs lists when it is called, which from main on include
// every linked recipe package's) and returns the Metrics to give
// framework.WithMetrics. It fails if reg refuses one, for example when
// another Metrics registered them already.
func New(reg prom.Registerer, opts ...Option) (*Metrics, error) {
	if reg == nil {
		return nil, fmt.Errorf("prometheus: nil Registerer")
	}
	o := options{buckets: DefaultBuckets}
	for _, opt := range opts {
		opt(&o)
	}
	m := &Metrics{
		counters:   make(map[string]*prom.CounterVec),
		histograms: make(map[string]*prom.HistogramVec),
		gauges:     make(map[string]*prom.GaugeVec),
	}
	for _, d := range framework.MetricDescs() {
		var c prom.Collector
		switch d.Kind {
		case framework.CounterKind:
			v := prom.NewCounterVec(prom.CounterOpts{Name: d.Name, Help: d.Help}, d.Labels)
			m.counters[d.Name], c = v, v
		case framework.HistogramKind:
			v := prom.NewHistogramVec(prom.HistogramOpts{Name: d.Name, Help: d.Help, Buckets: o.buckets}, d.Labels)
			m.histograms[d.Name], c = v, v
		case framework.GaugeKind:
			v := prom.NewGaugeVec(prom.GaugeOpts{Name: d.Name, Help: d.Help}, d.Labels)
			m.gauges[d.Name], c = v, v
		default:
			return nil, fmt.Errorf("prometheus: metric %s of unknown kind %d", d.Name, d.Kind)
		}
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("prometheus: register %s: %w", d.Name, err)
		}
	}
	return m, nil
}

// Counter implements framework.Metrics; a metric or labels that
// framework.MetricDescs does not list get an instrument that records nothing.
func (m *Metrics) Counter(name string, labels ...framework.Label) framework.Counter {
	if v, ok := m.counters[name]; ok {
		if c, err := v.GetMetricWith(promLabels(labels)); err == nil {
			return c
		}
	}
	return framework.NopMetrics{}.Counter(name)
}

// Histogram implements framework.Metrics, as Counter.
func (m *Metrics) Histogram(name string, labels ...framework.Label) framework.Histogram {
	if v, ok := m.histograms[name]; ok {
		if h, err := v.GetMetricWith(promLabels(labels)); err == nil {
			return h
		}
	}
	return framework.NopMetrics{}.Histogram(name)
}

// Gauge implements framework.Metrics, as Counter.
func (m *Metrics) Gauge(name string, labels ...framework.Label) framework.Gauge {
	if v, ok := m.gauges[name]; ok {
		if g, err := v.GetMetricWith(promLabels(labels)); err == nil {
			return g
		}
	}
	return framework.NopMetrics{}.Gauge(name)
}

func promLabels(labels []framework.Label) prom.Labels {
	out := make(prom.Labels, len(labels))
	for _, l := range labels {
		out[l.Name] = l.Value
	}
	return out
}
