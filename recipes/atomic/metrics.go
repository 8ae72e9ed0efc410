package atomic

import (
	"errors"

	"github.com/zkcurator/zkcurator/framework"
)

// updateMetrics are a value's instruments (framework.MetricDescs).
type updateMetrics struct {
	optimistic, promoted                framework.Counter // tries by phase
	promotions                          framework.Counter
	succeeded, failed, unknown, errored framework.Counter // updates by result
}

func newUpdateMetrics(c *framework.Client) *updateMetrics {
	m := c.Metrics()
	phase := func(v string) framework.Counter {
		return m.Counter(framework.MetricAtomicTries, framework.Label{Name: "phase", Value: v})
	}
	result := func(v string) framework.Counter {
		return m.Counter(framework.MetricAtomicUpdates, framework.Label{Name: "result", Value: v})
	}
	return &updateMetrics{
		optimistic: phase("optimistic"),
		promoted:   phase("promoted"),
		promotions: m.Counter(framework.MetricAtomicPromotions),
		succeeded:  result("succeeded"),
		failed:     result("failed"),
		unknown:    result("unknown"),
		errored:    result("error"),
	}
}

// record counts an update's tries and how it ended.
func (um *updateMetrics) record(stats AtomicStats, succeeded bool, err error) {
	um.optimistic.Add(float64(stats.OptimisticTries))
	um.promoted.Add(float64(stats.PromotedLockTries))
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		um.unknown.Add(1)
	case err != nil:
		um.errored.Add(1)
	case succeeded:
		um.succeeded.Add(1)
	default:
		um.failed.Add(1)
	}
}
