package locks

import (
	"context"
	"errors"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// The metrics the lock recipes report; durations are in seconds.
const (
	MetricAcquisitions = "zkcurator_lock_acquisitions_total"
	MetricWaitSeconds  = "zkcurator_lock_wait_seconds"
	MetricHoldSeconds  = "zkcurator_lock_hold_seconds"
	MetricHandoffs     = "zkcurator_lock_handoffs_total"
	MetricLost         = "zkcurator_lock_lost_total"
	MetricLeasesHeld   = "zkcurator_semaphore_leases"
)

func init() {
	framework.RegisterMetrics(
		framework.MetricDesc{Name: MetricAcquisitions, Kind: framework.CounterKind, Labels: []string{"recipe", "result"},
			Help: "Lock acquisitions by recipe (mutex, read, write, semaphore; a semaphore mutex counts as a semaphore) and result (acquired; timeout, when a TryAcquire's wait ran out; cancelled, when its context ended; error)."},
		framework.MetricDesc{Name: MetricWaitSeconds, Kind: framework.HistogramKind, Labels: []string{"recipe"},
			Help: "Time from the call to holding, for acquisitions that succeeded."},
		framework.MetricDesc{Name: MetricHoldSeconds, Kind: framework.HistogramKind, Labels: []string{"recipe"},
			Help: "Time from holding to the release (of a semaphore: from the lease granted to its Close)."},
		framework.MetricDesc{Name: MetricHandoffs, Kind: framework.CounterKind, Labels: []string{"recipe"},
			Help: "Acquisitions that waited behind another contender and were handed the lock."},
		framework.MetricDesc{Name: MetricLost, Kind: framework.CounterKind, Labels: []string{"recipe"},
			Help: "Holds and leases whose Lost channel closed before they were released."},
		framework.MetricDesc{Name: MetricLeasesHeld, Kind: framework.GaugeKind,
			Help: "Semaphore leases the process holds."},
	)
}

// The values of the recipe label of the lock metrics.
const (
	recipeMutex     = "mutex"
	recipeRead      = "read"
	recipeWrite     = "write"
	recipeSemaphore = "semaphore"
)

// lockMetrics are one recipe's instruments.
type lockMetrics struct {
	acquired, timedOut, cancelled, failed framework.Counter
	wait, hold                            framework.Histogram
	handoffs, lost                        framework.Counter
	leases                                framework.Gauge // semaphores only
}

// newLockMetrics asks c's Metrics for recipe's instruments; an empty recipe
// (a recipe's own internal lock) reports nothing.
func newLockMetrics(c *framework.Client, recipe string) *lockMetrics {
	var m framework.Metrics = framework.NopMetrics{}
	if c != nil && recipe != "" {
		m = c.Metrics()
	}
	r := framework.Label{Name: "recipe", Value: recipe}
	result := func(v string) framework.Counter {
		return m.Counter(MetricAcquisitions, r, framework.Label{Name: "result", Value: v})
	}
	lm := &lockMetrics{
		acquired:  result("acquired"),
		timedOut:  result("timeout"),
		cancelled: result("cancelled"),
		failed:    result("error"),
		wait:      m.Histogram(MetricWaitSeconds, r),
		hold:      m.Histogram(MetricHoldSeconds, r),
		handoffs:  m.Counter(MetricHandoffs, r),
		lost:      m.Counter(MetricLost, r),
	}
	if recipe == recipeSemaphore {
		lm.leases = m.Gauge(MetricLeasesHeld)
	}
	return lm
}

// acquisition records how an acquisition that began at began ended.
func (lm *lockMetrics) acquisition(began time.Time, held bool, err error) {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		lm.cancelled.Add(1)
	case err != nil:
		lm.failed.Add(1)
	case !held:
		lm.timedOut.Add(1)
	default:
		lm.acquired.Add(1)
		lm.wait.Observe(framework.Since(began))
	}
}
