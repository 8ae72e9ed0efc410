package discovery

import (
	"testing"
	"time"
)

// Curator's DownInstanceManager: an instance is down from its threshold-th
// noted error until the first purge at least timeout after its first error;
// purges run at most every timeout/2, so it may stay down up to 1.5 x
// timeout.
func TestDownInstancesFollowCuratorsPolicy(t *testing.T) {
	now := time.Unix(1000, 0)
	m := newDownInstances(DefaultDownTimeout, DefaultDownThreshold)
	m.now = func() time.Time { return now }
	m.lastPurge = now
	m.note("api/a")
	if !m.up("api/a") {
		t.Fatal("down after one error; Curator's threshold is 2")
	}
	m.note("api/a")
	if m.up("api/a") || !m.up("api/b") {
		t.Fatal("two errors should take a down, and only a")
	}
	now = now.Add(DefaultDownTimeout - time.Second) // a purge runs: a is too young
	if m.up("api/a") {
		t.Fatal("up again before the timeout")
	}
	now = now.Add(time.Second) // timeout reached, but the last purge was 1 s ago
	if m.up("api/a") {
		t.Fatal("purged sooner than timeout/2 after the last purge")
	}
	now = now.Add(DefaultDownTimeout / 2)
	if !m.up("api/a") {
		t.Fatal("still down at the next purge after the timeout")
	}
}
