package locks

import (
	"context"
	"errors"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// The values of the recipe label of the lock metrics.
const (
	recipeMutex     = "mutex"
	recipeRead      = "read"
	recipeWrite     = "write"
	recipeSemaphore = "semaphore"
)

// lockMetrics are one recipe's instruments (framework.MetricDescs).
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
		return m.Counter(framework.MetricLockAcquisitions, r, framework.Label{Name: "result", Value: v})
	}
	lm := &lockMetrics{
		acquired:  result("acquired"),
		timedOut:  result("timeout"),
		cancelled: result("cancelled"),
		failed:    result("error"),
		wait:      m.Histogram(framework.MetricLockWaitSeconds, r),
		hold:      m.Histogram(framework.MetricLockHoldSeconds, r),
		handoffs:  m.Counter(framework.MetricLockHandoffs, r),
		lost:      m.Counter(framework.MetricLockLost, r),
	}
	if recipe == recipeSemaphore {
		lm.leases = m.Gauge(framework.MetricLeasesHeld)
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
