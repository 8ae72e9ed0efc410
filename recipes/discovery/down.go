package discovery

import (
	"sync"
	"time"
)

// Curator's DownInstancePolicy defaults.
const (
	DefaultDownTimeout   = 30 * time.Second
	DefaultDownThreshold = 2
)

// downInstances is Curator's DownInstanceManager: an instance noted with
// errors threshold times is left out until timeout after its first noted
// error. Unlike Curator, where a status ends only at a purge (which runs
// at most every timeout/2, so an instance may stay out 1.5 x timeout), a
// status older than timeout counts for nothing; the purge only frees it.
type downInstances struct {
	timeout   time.Duration
	threshold int
	now       func() time.Time

	mu        sync.Mutex
	statuses  map[string]*downStatus // by instance key
	lastPurge time.Time
}

type downStatus struct {
	since  time.Time
	errors int
}

func newDownInstances(timeout time.Duration, threshold int) *downInstances {
	return &downInstances{timeout: timeout, threshold: threshold, now: time.Now, statuses: map[string]*downStatus{}, lastPurge: time.Now()}
}

// note counts one error of the instance key.
func (m *downInstances) note(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.purge()
	now := m.now()
	s := m.statuses[key]
	if s == nil || m.expired(s, now) {
		s = &downStatus{since: now}
		m.statuses[key] = s
	}
	s.errors++
}

// up reports whether the instance key is not held down.
func (m *downInstances) up(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.purge()
	s := m.statuses[key]
	return s == nil || s.errors < m.threshold || m.expired(s, m.now())
}

// expired reports whether s is timeout old or older at now: it no longer
// holds its instance down.
func (m *downInstances) expired(s *downStatus, now time.Time) bool {
	return now.Sub(s.since) >= m.timeout
}

// purge forgets the expired statuses, at most every timeout/2 (as
// Curator), so that the map does not grow. Called with mu held.
func (m *downInstances) purge() {
	now := m.now()
	if now.Sub(m.lastPurge) < m.timeout/2 {
		return
	}
	m.lastPurge = now
	for k, s := range m.statuses {
		if m.expired(s, now) {
			delete(m.statuses, k)
		}
	}
}
