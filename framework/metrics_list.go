package framework

import (
	"fmt"
	"slices"
	"sync"
)

// The names of the metrics the framework itself reports; durations are in
// seconds. Each recipe package declares the names of its own metrics in its
// metrics.go and registers them (RegisterMetrics).
const (
	MetricOperationSeconds       = "zkcurator_operation_seconds"
	MetricRetries                = "zkcurator_retries_total"
	MetricConnectionStates       = "zkcurator_connection_states_total"
	MetricConnectionStateSeconds = "zkcurator_connection_state_seconds_total"
)

// MetricKind is what kind of instrument a metric is.
type MetricKind int

// The kinds of instruments.
const (
	CounterKind MetricKind = iota + 1
	HistogramKind
	GaugeKind
)

// MetricDesc describes one metric: adapters register every one of them up
// front, and instruments are asked for with exactly its labels.
type MetricDesc struct {
	Name   string
	Kind   MetricKind
	Labels []string
	Help   string
}

// frameworkMetrics are the framework's own metrics.
var frameworkMetrics = []MetricDesc{
	{MetricOperationSeconds, HistogramKind, []string{"op", "result"},
		"Duration of a client operation as its caller saw it, waits for a connection and retries included, by operation and result (ok or error)."},
	{MetricRetries, CounterKind, nil,
		"Retries the retry policy granted after a retryable failure."},
	{MetricConnectionStates, CounterKind, []string{"state"},
		"Connection states reported to listeners: CONNECTED, SUSPENDED, RECONNECTED, LOST, READ_ONLY."},
	{MetricConnectionStateSeconds, CounterKind, []string{"state"},
		"Time spent in each connection state, added when the state ends."},
	{MetricUnhandledErrors, CounterKind, nil,
		"Errors no call could return (a failed TLS handshake, a rejected authentication, an abandoned guaranteed delete, a recipe's background failure), as told to ListenErrors."},
}

// registered holds the metrics of the packages that reported theirs with
// RegisterMetrics, in the order they did.
var registered struct {
	mu    sync.Mutex
	descs []MetricDesc
}

// RegisterMetrics adds the metrics a package reports to MetricDescs. A
// package calls it from an init function, so that the list is complete
// before main runs, when adapters are built. It panics, naming the metric,
// on a name already listed, or on a desc without a name, a known kind or
// help: a programming error, found as the program starts.
func RegisterMetrics(descs ...MetricDesc) {
	registered.mu.Lock()
	defer registered.mu.Unlock()
	listed := func(name string) bool {
		has := func(d MetricDesc) bool { return d.Name == name }
		return slices.ContainsFunc(frameworkMetrics, has) || slices.ContainsFunc(registered.descs, has)
	}
	for _, d := range descs {
		switch {
		case d.Name == "" || d.Help == "" || d.Kind < CounterKind || d.Kind > GaugeKind:
			panic(fmt.Sprintf("framework: RegisterMetrics: metric %q needs a name, a known kind (got %d) and help", d.Name, d.Kind))
		case listed(d.Name):
			panic(fmt.Sprintf("framework: RegisterMetrics: metric %q is registered already", d.Name))
		}
		d.Labels = slices.Clone(d.Labels)
		registered.descs = append(registered.descs, d)
	}
}

// MetricDescs lists every metric the program can report: the framework's
// own first, then those registered by the packages it links (each recipe
// package registers its own), in the order they registered.
func MetricDescs() []MetricDesc {
	registered.mu.Lock()
	defer registered.mu.Unlock()
	out := append(slices.Clone(frameworkMetrics), registered.descs...)
	for i := range out {
		out[i].Labels = slices.Clone(out[i].Labels) // the list stays as registered
	}
	return out
}
