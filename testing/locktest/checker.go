// Package locktest checks lock recipes against a real ZooKeeper: an
// exclusion Checker that records critical sections, and a suite that any
// LockInternalsDriver must pass.
package locktest

import "sync"

// Checker records entries into and exits from a critical section and counts
// violations: an exclusive entry while anyone is inside, or a shared entry
// while an exclusive holder is inside. It is safe for concurrent use.
type Checker struct {
	mu         sync.Mutex
	exclusive  int
	shared     int
	maxShared  int
	entries    int
	violations int
}

// Enter records an exclusive entry and returns the matching exit.
func (c *Checker) Enter() (exit func()) { return c.enter(true) }

// EnterShared records a shared (reader) entry and returns the matching exit.
func (c *Checker) EnterShared() (exit func()) { return c.enter(false) }

func (c *Checker) enter(exclusive bool) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries++
	if c.exclusive > 0 || (exclusive && c.shared > 0) {
		c.violations++
	}
	if exclusive {
		c.exclusive++
	} else {
		c.shared++
		c.maxShared = max(c.maxShared, c.shared)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if exclusive {
				c.exclusive--
			} else {
				c.shared--
			}
		})
	}
}

// Violations returns how many entries overlapped in a forbidden way.
func (c *Checker) Violations() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.violations
}

// Entries returns how many entries were recorded.
func (c *Checker) Entries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries
}

// MaxShared returns the largest number of shared holders seen at once.
func (c *Checker) MaxShared() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxShared
}
