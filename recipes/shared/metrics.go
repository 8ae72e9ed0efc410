package shared

import (
	"errors"

	"github.com/zkcurator/zkcurator/framework"
)

// MetricTrySets counts the TrySet calls of SharedCount and SharedValue by
// result.
const MetricTrySets = "zkcurator_shared_try_sets_total"

func init() {
	framework.RegisterMetrics(
		framework.MetricDesc{Name: MetricTrySets, Kind: framework.CounterKind, Labels: []string{"result"},
			Help: "TrySet calls of a SharedCount or SharedValue by result: applied; stale, when the node's version had moved on; unknown, when the reply was lost; error."},
	)
}

// trySetMetrics count a value's TrySet calls by result
// (MetricTrySets).
type trySetMetrics struct {
	applied, stale, unknown, errored framework.Counter
}

func newTrySetMetrics(c *framework.Client) trySetMetrics {
	m := c.Metrics()
	result := func(v string) framework.Counter {
		return m.Counter(MetricTrySets, framework.Label{Name: "result", Value: v})
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
