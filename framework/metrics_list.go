package framework

// The names of every metric the framework and the recipes report. Each is
// described, with its kind and labels, in MetricDescs; durations are in
// seconds.
const (
	MetricOperationSeconds       = "zkcurator_operation_seconds"
	MetricRetries                = "zkcurator_retries_total"
	MetricConnectionStates       = "zkcurator_connection_states_total"
	MetricConnectionStateSeconds = "zkcurator_connection_state_seconds_total"

	MetricLockAcquisitions = "zkcurator_lock_acquisitions_total"
	MetricLockWaitSeconds  = "zkcurator_lock_wait_seconds"
	MetricLockHoldSeconds  = "zkcurator_lock_hold_seconds"
	MetricLockHandoffs     = "zkcurator_lock_handoffs_total"
	MetricLockLost         = "zkcurator_lock_lost_total"
	MetricLeasesHeld       = "zkcurator_semaphore_leases"

	MetricLeaderTerms       = "zkcurator_leader_terms_total"
	MetricLeaderTermSeconds = "zkcurator_leader_term_seconds"
	MetricLeaderLeading     = "zkcurator_leader_leading"

	MetricCacheEvents = "zkcurator_cache_events_total"

	MetricAtomicUpdates    = "zkcurator_atomic_updates_total"
	MetricAtomicTries      = "zkcurator_atomic_tries_total"
	MetricAtomicPromotions = "zkcurator_atomic_promotions_total"

	MetricSharedTrySets = "zkcurator_shared_try_sets_total"
)

// MetricKind is what kind of instrument a metric is.
type MetricKind int

// The kinds of instruments.
const (
	CounterKind MetricKind = iota + 1
	HistogramKind
	GaugeKind
)

// MetricDesc describes one metric: adapters register every one of them up
// front, and instruments are asked for with exactly its labels.
type MetricDesc struct {
	Name   string
	Kind   MetricKind
	Labels []string
	Help   string
}

// MetricDescs lists every metric the framework and the recipes report.
func MetricDescs() []MetricDesc {
	return []MetricDesc{
		{MetricOperationSeconds, HistogramKind, []string{"op", "result"},
			"Duration of a client operation as its caller saw it, waits for a connection and retries included, by operation and result (ok or error)."},
		{MetricRetries, CounterKind, nil,
			"Retries the retry policy granted after a retryable failure."},
		{MetricConnectionStates, CounterKind, []string{"state"},
			"Connection states reported to listeners: CONNECTED, SUSPENDED, RECONNECTED, LOST, READ_ONLY."},
		{MetricConnectionStateSeconds, CounterKind, []string{"state"},
			"Time spent in each connection state, added when the state ends."},

		{MetricLockAcquisitions, CounterKind, []string{"recipe", "result"},
			"Lock acquisitions by recipe (mutex, read, write, semaphore; a semaphore mutex counts as a semaphore) and result (acquired; timeout, when a TryAcquire's wait ran out; cancelled, when its context ended; error)."},
		{MetricLockWaitSeconds, HistogramKind, []string{"recipe"},
			"Time from the call to holding, for acquisitions that succeeded."},
		{MetricLockHoldSeconds, HistogramKind, []string{"recipe"},
			"Time from holding to the release (of a semaphore: from the lease granted to its Close)."},
		{MetricLockHandoffs, CounterKind, []string{"recipe"},
			"Acquisitions that waited behind another contender and were handed the lock."},
		{MetricLockLost, CounterKind, []string{"recipe"},
			"Holds and leases whose Lost channel closed before they were released."},
		{MetricLeasesHeld, GaugeKind, nil,
			"Semaphore leases the process holds."},

		{MetricLeaderTerms, CounterKind, []string{"recipe"},
			"Leadership terms begun, by recipe (latch, selector)."},
		{MetricLeaderTermSeconds, HistogramKind, []string{"recipe"},
			"Length of ended leadership terms."},
		{MetricLeaderLeading, GaugeKind, []string{"recipe"},
			"Participants of the process that lead now."},

		{MetricCacheEvents, CounterKind, []string{"cache", "type"},
			"Cache events emitted to the consumer, by cache (node, children, tree) and event type (NODE_ADDED, NODE_UPDATED, NODE_REMOVED, INITIALIZED, CONNECTION_SUSPENDED, CONNECTION_RECONNECTED, CONNECTION_LOST)."},

		{MetricAtomicUpdates, CounterKind, []string{"result"},
			"Updates of a DistributedAtomicValue or DistributedAtomicLong (CompareAndSet included) by result: succeeded; failed, when it did not apply (a conflict outlasted the tries, the promoted lock's wait ran out, or CompareAndSet found another value); unknown, when a write's reply was lost; error."},
		{MetricAtomicTries, CounterKind, []string{"phase"},
			"Read-and-write tries of those updates, by phase: optimistic, or promoted (made while holding the promoted lock)."},
		{MetricAtomicPromotions, CounterKind, nil,
			"Updates whose optimistic tries were used up and that went on to the promoted lock."},

		{MetricSharedTrySets, CounterKind, []string{"result"},
			"TrySet calls of a SharedCount or SharedValue by result: applied; stale, when the node's version had moved on; unknown, when the reply was lost; error."},
	}
}
