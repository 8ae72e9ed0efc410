package framework

import "time"

// Metrics receives the measurements of a client and of every recipe built on
// it (WithMetrics). Instruments are asked for once, when a client or recipe
// is built, with labels fixed then; recording through them allocates
// nothing. Names, kinds and label names are those of MetricDescs.
// Implementations must be safe for concurrent use and must not block.
type Metrics interface {
	Counter(name string, labels ...Label) Counter
	Histogram(name string, labels ...Label) Histogram
	Gauge(name string, labels ...Label) Gauge
}

// Label is one label of an instrument, by name and value.
type Label struct{ Name, Value string }

// Counter is a monotonically increasing count.
type Counter interface{ Add(delta float64) }

// Histogram is a distribution of observed values, seconds for durations.
type Histogram interface{ Observe(value float64) }

// Gauge is a value that goes up and down.
type Gauge interface{ Add(delta float64) }

// NopMetrics records nothing; it is the default.
type NopMetrics struct{}

type nop struct{}

func (nop) Add(float64)     {}
func (nop) Observe(float64) {}

// Counter implements Metrics.
func (NopMetrics) Counter(string, ...Label) Counter { return nop{} }

// Histogram implements Metrics.
func (NopMetrics) Histogram(string, ...Label) Histogram { return nop{} }

// Gauge implements Metrics.
func (NopMetrics) Gauge(string, ...Label) Gauge { return nop{} }

// WithMetrics sends the client's and its recipes' measurements to m
// (default NopMetrics). Adapters: metrics/prometheus and metrics/otel.
func WithMetrics(m Metrics) Option {
	return func(c *config) { c.metrics = m }
}

// Metrics returns what the client reports measurements to, for recipes to
// ask their instruments of.
func (c *Client) Metrics() Metrics { return c.core.cfg.metrics }

// Since returns the seconds elapsed since t, as histograms of durations take
// them.
func Since(t time.Time) float64 { return time.Since(t).Seconds() }

// clientMetrics are the framework's own instruments.
type clientMetrics struct {
	ops         map[string][2]Histogram // by operation: ok, error
	retries     Counter
	unhandled   Counter
	transitions [ReadOnly + 1]Counter
	timeIn      [ReadOnly + 1]Counter
}

// operations maps the client's names of its operations to the values of the
// op label of MetricOperationSeconds.
var operations = map[string]string{
	"create": "create", "delete": "delete", "exists": "exists",
	"get data": "get_data", "set data": "set_data", "get children": "get_children",
	"transaction": "transaction", "create containers": "create_containers",
	"sync": "sync", "get ACL": "get_acl", "set ACL": "set_acl",
}

func newClientMetrics(m Metrics) *clientMetrics {
	cm := &clientMetrics{ops: make(map[string][2]Histogram, len(operations))}
	for op, label := range operations {
		cm.ops[op] = [2]Histogram{
			m.Histogram(MetricOperationSeconds, Label{"op", label}, Label{"result", "ok"}),
			m.Histogram(MetricOperationSeconds, Label{"op", label}, Label{"result", "error"}),
		}
	}
	cm.retries = m.Counter(MetricRetries)
	cm.unhandled = m.Counter(MetricUnhandledErrors)
	for st := Connected; st <= ReadOnly; st++ {
		cm.transitions[st] = m.Counter(MetricConnectionStates, Label{"state", st.String()})
		cm.timeIn[st] = m.Counter(MetricConnectionStateSeconds, Label{"state", st.String()})
	}
	return cm
}

// operation records one operation's duration since began, by outcome.
func (cm *clientMetrics) operation(op string, began time.Time, err error) {
	h, ok := cm.ops[op]
	if !ok {
		return
	}
	i := 0
	if err != nil {
		i = 1
	}
	h[i].Observe(Since(began))
}
