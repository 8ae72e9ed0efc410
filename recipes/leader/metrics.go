package leader

import (
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// The metrics the leader recipes report; durations are in seconds.
const (
	MetricTerms       = "zkcurator_leader_terms_total"
	MetricTermSeconds = "zkcurator_leader_term_seconds"
	MetricLeading     = "zkcurator_leader_leading"
)

func init() {
	framework.RegisterMetrics(
		framework.MetricDesc{Name: MetricTerms, Kind: framework.CounterKind, Labels: []string{"recipe"},
			Help: "Leadership terms begun, by recipe (latch, selector)."},
		framework.MetricDesc{Name: MetricTermSeconds, Kind: framework.HistogramKind, Labels: []string{"recipe"},
			Help: "Length of ended leadership terms."},
		framework.MetricDesc{Name: MetricLeading, Kind: framework.GaugeKind, Labels: []string{"recipe"},
			Help: "Participants of the process that lead now."},
	)
}

// termMetrics are one recipe's instruments.
type termMetrics struct {
	begun   framework.Counter
	length  framework.Histogram
	leading framework.Gauge
}

// newTermMetrics asks c's Metrics for the instruments of recipe (latch or
// selector).
func newTermMetrics(c *framework.Client, recipe string) *termMetrics {
	m := c.Metrics()
	r := framework.Label{Name: "recipe", Value: recipe}
	return &termMetrics{
		begun:   m.Counter(MetricTerms, r),
		length:  m.Histogram(MetricTermSeconds, r),
		leading: m.Gauge(MetricLeading, r),
	}
}

func (tm *termMetrics) begin() {
	tm.begun.Add(1)
	tm.leading.Add(1)
}

func (tm *termMetrics) end(began time.Time) {
	tm.leading.Add(-1)
	tm.length.Observe(framework.Since(began))
}
