package framework

import (
	"testing"
	"time"
)

// With the default NopMetrics, recording costs no allocation.
func TestNopMetricsAllocateNothing(t *testing.T) {
	cm := newClientMetrics(NopMetrics{})
	began := time.Now()
	if n := testing.AllocsPerRun(100, func() {
		cm.operation("exists", began, nil)
		cm.retries.Add(1)
		cm.transitions[Connected].Add(1)
	}); n != 0 {
		t.Fatalf("%v allocations per recording, want 0", n)
	}
}
