package discovery

import (
	"testing"
	"time"
)

// Curator's DownInstanceManager: an instance is down from its threshold-th
// noted error until timeout after its first noted error, exactly: a purge
// that ran just before the timeout does not keep it out longer.
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
	now = now.Add(time.Second) // timeout reached; the last purge was 1 s ago
	if !m.up("api/a") {
		t.Fatal("still down at the timeout after its first error")
	}
}

// WithDownInstancePolicy(4s, 1): an instance is out from its only error
// until 4 s later and back in at 4 s, whenever the purges ran; an error
// after that starts a new period.
func TestDownInstanceIsBackExactlyAtTheTimeout(t *testing.T) {
	const timeout = 4 * time.Second
	start := time.Unix(1000, 0)
	now := start
	m := newDownInstances(timeout, 1)
	m.now = func() time.Time { return now }
	m.lastPurge = start
	m.note("api/a")
	// A purge runs at timeout - 1ms (a is too young), so the next may not
	// run before 1.5 x timeout - 1ms.
	for _, at := range []time.Duration{0, timeout/2 - time.Millisecond, timeout - time.Millisecond, timeout - time.Nanosecond} {
		now = start.Add(at)
		if m.up("api/a") {
			t.Fatalf("back %v after its only error; the timeout is %v", at, timeout)
		}
	}
	now = start.Add(timeout)
	if !m.up("api/a") {
		t.Fatalf("still out at the timeout (%v); the last purge ran at %v", timeout, m.lastPurge.Sub(start))
	}

	// An error noted after the timeout, before any purge forgot the old
	// status, takes it out for a full timeout again.
	m.note("api/a")
	restart := now
	now = restart.Add(timeout - time.Nanosecond)
	if m.up("api/a") {
		t.Fatal("an error after the timeout did not take it out again")
	}
	now = restart.Add(timeout)
	if !m.up("api/a") {
		t.Fatal("still out a timeout after the new error")
	}
}

// The purge still frees what expired.
func TestDownInstancesPurgeFreesExpiredStatuses(t *testing.T) {
	now := time.Unix(1000, 0)
	m := newDownInstances(time.Second, 1)
	m.now = func() time.Time { return now }
	m.lastPurge = now
	m.note("api/a")
	now = now.Add(time.Second)
	m.up("api/b")
	if len(m.statuses) != 0 {
		t.Fatalf("statuses after the timeout and a purge: %v", m.statuses)
	}
}
