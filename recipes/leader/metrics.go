package leader

import (
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// termMetrics are one recipe's instruments (framework.MetricDescs).
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
		begun:   m.Counter(framework.MetricLeaderTerms, r),
		length:  m.Histogram(framework.MetricLeaderTermSeconds, r),
		leading: m.Gauge(framework.MetricLeaderLeading, r),
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
