package main

import (
	"fmt"
	"slices"
	"time"
)

// result is one run's outcome; String renders the RESULT line other tools
// parse (scripts/bench.sh, by key): a field may be added, none renamed.
type result struct {
	impl                string
	clients, iterations int
	ops                 int
	secs                float64
	acqP50, acqP99      time.Duration
	cycleP50, cycleP99  time.Duration
	handoffP50          time.Duration
	violations          int64
	counterOK           bool
	errors              int
	cost                cost  // per cycle; fields not measured are negative
	trace               trace // with -trace-handoffs
}

// ok reports whether the lock excluded and every operation succeeded.
func (r result) ok() bool { return r.violations == 0 && r.counterOK && r.errors == 0 }

func (r result) opsPerSec() float64 {
	if r.secs <= 0 {
		return 0
	}
	return float64(r.ops) / r.secs
}

func (r result) String() string {
	return fmt.Sprintf("RESULT impl=%s clients=%d iterations=%d ops=%d secs=%.3f ops_s=%.1f"+
		" acq_p50_ms=%.3f acq_p99_ms=%.3f cycle_p50_ms=%.3f cycle_p99_ms=%.3f handoff_p50_ms=%.3f"+
		" violations=%d counter_ok=%t errors=%d",
		r.impl, r.clients, r.iterations, r.ops, r.secs, r.opsPerSec(),
		ms(r.acqP50), ms(r.acqP99), ms(r.cycleP50), ms(r.cycleP99), ms(r.handoffP50),
		r.violations, r.counterOK, r.errors) + r.cost.String() + r.trace.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile returns the nearest-rank p-th percentile of samples (0 when
// there are none); it sorts samples.
func percentile(samples []time.Duration, p int) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	slices.Sort(samples)
	rank := (p*len(samples) + 99) / 100 // ceil(p/100 * n)
	return samples[max(rank, 1)-1]
}
