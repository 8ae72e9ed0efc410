package atomic

import "time"

// AtomicValue is the outcome of an operation, as Curator's AtomicValue: whether
// it succeeded, the value before it and the value after it. When an update
// did not succeed, PostValue is the value it tried to write (or the zero value
// if it never computed one).
type AtomicValue[T any] struct {
	Succeeded bool
	PreValue  T
	PostValue T
	Stats     AtomicStats
}

// AtomicStats counts the tries an operation took, as Curator's AtomicStats.
type AtomicStats struct {
	// OptimisticTries counts the optimistic reads and writes.
	OptimisticTries int
	// PromotedLockTries counts the tries made while holding the lock.
	PromotedLockTries int
	// OptimisticTime is the time spent in optimistic tries.
	OptimisticTime time.Duration
	// PromotedTime is the time spent acquiring the lock and trying under it.
	PromotedTime time.Duration
}
