package shared

import (
	"errors"

	"github.com/zkcurator/zkcurator/framework"
)

// trySetMetrics count a value's TrySet calls by result
// (framework.MetricSharedTrySets).
type trySetMetrics struct {
	applied, stale, unknown, errored framework.Counter
}

func newTrySetMetrics(c *framework.Client) trySetMetrics {
	m := c.Metrics()
	result := func(v string) framework.Counter {
		return m.Counter(framework.MetricSharedTrySets, framework.Label{Name: "result", Value: v})
	}
	return trySetMetrics{applied: result("applied"), stale: result("stale"), unknown: result("unknown"), errored: result("error")}
}

// record counts how a TrySet of a started value ended.
func (tm trySetMetrics) record(applied bool, err error) {
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		tm.unknown.Add(1)
	case err != nil:
		tm.errored.Add(1)
	case applied:
		tm.applied.Add(1)
	default:
		tm.stale.Add(1)
	}
}
