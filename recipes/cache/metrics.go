package cache

import "github.com/zkcurator/zkcurator/framework"

// MetricEvents counts the events caches emit, by cache and event type.
const MetricEvents = "zkcurator_cache_events_total"

func init() {
	framework.RegisterMetrics(
		framework.MetricDesc{Name: MetricEvents, Kind: framework.CounterKind, Labels: []string{"cache", "type"},
			Help: "Cache events emitted to the consumer, by cache (node, children, tree, curator) and event type (NODE_ADDED, NODE_UPDATED, NODE_REMOVED, INITIALIZED, CONNECTION_SUSPENDED, CONNECTION_RECONNECTED, CONNECTION_LOST)."},
	)
}

// eventMetrics counts a cache's events by type (MetricEvents).
type eventMetrics [ConnectionLost + 1]framework.Counter

func newEventMetrics(c *framework.Client, kind string) eventMetrics {
	var em eventMetrics
	m := c.Metrics()
	for t := NodeAdded; t <= ConnectionLost; t++ {
		em[t] = m.Counter(MetricEvents,
			framework.Label{Name: "cache", Value: kind}, framework.Label{Name: "type", Value: t.String()})
	}
	return em
}
