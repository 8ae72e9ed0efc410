package cache

import "github.com/zkcurator/zkcurator/framework"

// eventMetrics counts a cache's events by type (framework.MetricCacheEvents).
type eventMetrics [ConnectionLost + 1]framework.Counter

func newEventMetrics(c *framework.Client, kind string) eventMetrics {
	var em eventMetrics
	m := c.Metrics()
	for t := NodeAdded; t <= ConnectionLost; t++ {
		em[t] = m.Counter(framework.MetricCacheEvents,
			framework.Label{Name: "cache", Value: kind}, framework.Label{Name: "type", Value: t.String()})
	}
	return em
}
