// Package metricstest records what a client and its recipes report through
// framework.Metrics, and checks each instrument against
// framework.MetricDescs, so that tests can assert exact counts.
package metricstest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/zkcurator/zkcurator/framework"
)

// Recorder is a framework.Metrics that keeps every value in memory. An
// instrument asked for with a name or labels that MetricDescs does not list
// is recorded as a problem (Problems).
type Recorder struct {
	mu       sync.Mutex
	descs    map[string]framework.MetricDesc
	values   map[string]*value
	problems []string
}

type value struct {
	sum   float64 // counter and gauge value, or histogram sum
	count int     // histogram observations
}

// New returns an empty Recorder that checks instruments against the
// metrics framework.MetricDescs lists now: the framework's and those of the
// recipe packages the test links.
func New() *Recorder {
	r := &Recorder{descs: make(map[string]framework.MetricDesc), values: make(map[string]*value)}
	for _, d := range framework.MetricDescs() {
		r.descs[d.Name] = d
	}
	return r
}

// key is how a series is named: name{label="value",...} in the order of
// the metric's label names.
func key(name string, labels []framework.Label) string {
	if len(labels) == 0 {
		return name
	}
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = fmt.Sprintf("%s=%q", l.Name, l.Value)
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

func (r *Recorder) series(name string, kind framework.MetricKind, labels []framework.Label) *value {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.descs[name]
	var names []string
	for _, l := range labels {
		names = append(names, l.Name)
	}
	switch {
	case !ok:
		r.problems = append(r.problems, "unlisted metric "+name)
	case d.Kind != kind:
		r.problems = append(r.problems, fmt.Sprintf("%s asked for as kind %d, listed as %d", name, kind, d.Kind))
	case !slices.Equal(names, d.Labels):
		r.problems = append(r.problems, fmt.Sprintf("%s asked for with labels %v, listed with %v", name, names, d.Labels))
	}
	k := key(name, labels)
	v := r.values[k]
	if v == nil {
		v = &value{}
		r.values[k] = v
	}
	return v
}

type instrument struct {
	r *Recorder
	v *value
}

func (i instrument) Add(delta float64) {
	i.r.mu.Lock()
	i.v.sum += delta
	i.r.mu.Unlock()
}

func (i instrument) Observe(v float64) {
	i.r.mu.Lock()
	i.v.sum += v
	i.v.count++
	i.r.mu.Unlock()
}

// Counter implements framework.Metrics.
func (r *Recorder) Counter(name string, labels ...framework.Label) framework.Counter {
	return instrument{r, r.series(name, framework.CounterKind, labels)}
}

// Histogram implements framework.Metrics.
func (r *Recorder) Histogram(name string, labels ...framework.Label) framework.Histogram {
	return instrument{r, r.series(name, framework.HistogramKind, labels)}
}

// Gauge implements framework.Metrics.
func (r *Recorder) Gauge(name string, labels ...framework.Label) framework.Gauge {
	return instrument{r, r.series(name, framework.GaugeKind, labels)}
}

// Value returns a counter's or gauge's value, or a histogram's sum, for
// the series of name with labels given as name, value pairs.
func (r *Recorder) Value(name string, labels ...string) float64 {
	return r.get(name, labels).sum
}

// Count returns how many values a histogram series observed.
func (r *Recorder) Count(name string, labels ...string) int {
	return r.get(name, labels).count
}

func (r *Recorder) get(name string, pairs []string) value {
	var labels []framework.Label
	for i := 0; i+1 < len(pairs); i += 2 {
		labels = append(labels, framework.Label{Name: pairs[i], Value: pairs[i+1]})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v := r.values[key(name, labels)]; v != nil {
		return *v
	}
	return value{}
}

// Problems returns the instruments asked for against the list, sorted.
func (r *Recorder) Problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := slices.Clone(r.problems)
	sort.Strings(p)
	return slices.Compact(p)
}

// Series returns every series recorded so far, sorted, for failure messages.
func (r *Recorder) Series() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k, v := range r.values {
		out = append(out, fmt.Sprintf("%s sum=%g count=%d", k, v.sum, v.count))
	}
	sort.Strings(out)
	return out
}
