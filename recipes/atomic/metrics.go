package atomic

import (
	"errors"

	"github.com/zkcurator/zkcurator/framework"
)

// The metrics of the updates of DistributedAtomicValue and
// DistributedAtomicLong.
const (
	MetricUpdates    = "zkcurator_atomic_updates_total"
	MetricTries      = "zkcurator_atomic_tries_total"
	MetricPromotions = "zkcurator_atomic_promotions_total"
)

func init() {
	framework.RegisterMetrics(
		framework.MetricDesc{Name: MetricUpdates, Kind: framework.CounterKind, Labels: []string{"result"},
			Help: "Updates of a DistributedAtomicValue or DistributedAtomicLong (CompareAndSet included) by result: succeeded; failed, when it did not apply (a conflict outlasted the tries, the promoted lock's wait ran out, or CompareAndSet found another value); unknown, when a write's reply was lost; error."},
		framework.MetricDesc{Name: MetricTries, Kind: framework.CounterKind, Labels: []string{"phase"},
			Help: "Read-and-write tries of those updates, by phase: optimistic, or promoted (made while holding the promoted lock)."},
		framework.MetricDesc{Name: MetricPromotions, Kind: framework.CounterKind,
			Help: "Updates whose optimistic tries were used up and that went on to the promoted lock."},
	)
}

// updateMetrics are a value's instruments.
type updateMetrics struct {
	optimistic, promoted                framework.Counter // tries by phase
	promotions                          framework.Counter
	succeeded, failed, unknown, errored framework.Counter // updates by result
}

func newUpdateMetrics(c *framework.Client) *updateMetrics {
	m := c.Metrics()
	phase := func(v string) framework.Counter {
		return m.Counter(MetricTries, framework.Label{Name: "phase", Value: v})
	}
	result := func(v string) framework.Counter {
		return m.Counter(MetricUpdates, framework.Label{Name: "result", Value: v})
	}
	return &updateMetrics{
		optimistic: phase("optimistic"),
		promoted:   phase("promoted"),
		promotions: m.Counter(MetricPromotions),
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
