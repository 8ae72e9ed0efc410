package campaign

import (
	"fmt"
	"time"
)

// LockKind selects the lock a campaign exercises.
type LockKind int

const (
	// MutexLock is InterProcessMutex: every hold writes.
	MutexLock LockKind = iota
	// ReadWriteLock is InterProcessReadWriteLock: each worker alternates a
	// write under the write lock and a read under the read lock.
	ReadWriteLock
	// Semaphore is InterProcessSemaphoreV2 with Config.MaxLeases leases:
	// every hold is a lease under which the worker reads.
	Semaphore
	// SemaphoreMutex is InterProcessSemaphoreMutex, a semaphore of one lease.
	SemaphoreMutex
	// ElectionLatch is a LeaderLatch election: every term (a latch of its
	// own) writes with the term's fencing token.
	ElectionLatch
	// ElectionSelector is a LeaderSelector election: every term (a selector
	// of its own, its function running) writes with the term's token.
	ElectionSelector
	// Counter is a DistributedAtomicLong (optimistic, or promoted to a lock)
	// and a SharedCount that every client increments.
	Counter
	// TTLMutexLock is InterProcessMutex under PersistentTTLLockInternalsDriver
	// with a TTL of one second and a protected id per client: every hold
	// writes, and the nemesis's pauses cut holders off for longer than the
	// TTL. The ensemble must run with extended types (zktest.WithExtendedTypes).
	TTLMutexLock
	// Discovery is a ServiceDiscovery per client: registrations come and go,
	// and each client's ServiceCache must follow the server.
	Discovery
	// Membership is a GroupMember per client: after each fault settles,
	// every live member sees exactly the live members (membership_workload.go).
	Membership
	// Cache is a CuratorCache per client over one subtree in which every
	// client creates, updates and deletes nodes and keeps an ephemeral one;
	// after each fault settles each cache must equal the server's subtree
	// (cache_workload.go).
	Cache
	// Barrier is a DistributedDoubleBarrier of every client, entered, held
	// and left round after round; nobody may pass Enter before all began
	// entering, or return from Leave before all began leaving
	// (barrier_workload.go).
	Barrier
	// Queue is a DistributedQueue in lock path mode: half the clients put
	// items, the other half consume them; every item must be taken exactly
	// once (queue_workload.go).
	Queue
)

// String names the lock kind ("mutex", "rwlock", "semaphore",
// "semaphore-mutex", "election-latch", "election-selector", "counter",
// "ttl-mutex", "discovery", "membership", "cache", "barrier" or "queue"); it is also
// the name of the campaign's znode.
func (k LockKind) String() string {
	switch k {
	case MutexLock:
		return "mutex"
	case ReadWriteLock:
		return "rwlock"
	case Semaphore:
		return "semaphore"
	case SemaphoreMutex:
		return "semaphore-mutex"
	case ElectionLatch:
		return "election-latch"
	case ElectionSelector:
		return "election-selector"
	case Counter:
		return "counter"
	case TTLMutexLock:
		return "ttl-mutex"
	case Discovery:
		return "discovery"
	case Membership:
		return "membership"
	case Cache:
		return "cache"
	case Barrier:
		return "barrier"
	case Queue:
		return "queue"
	}
	return fmt.Sprintf("LockKind(%d)", int(k))
}

// settles reports whether the campaign stops its churn after each fault
// until every client's cache has agreed with the server (churnGate).
func (k LockKind) settles() bool { return k == Discovery || k == Cache }

// freezable reports whether the campaign runs PauseClientProcess: a
// contender process of the kind (a mutex, TTL mutex or write-lock holder, a
// leader, an incrementer of the long) frozen mid-section and woken, whose
// late write the campaign's checker judges. A frozen lease holder,
// registrant, group member, cache or barrier member writes nothing the
// checkers could judge (docs/campaign.md).
func (k LockKind) freezable() bool {
	_, ok := contenderModes[k]
	return ok
}

// leases reports whether k is a semaphore, whose holds are leases.
func (k LockKind) leases() bool { return k == Semaphore || k == SemaphoreMutex }

// Config describes one campaign. Zero fields take the defaults noted.
type Config struct {
	Seed     uint64        // fixes the fault schedule, together with Kind
	Duration time.Duration // how long the nemesis injects faults (required)
	Kind     LockKind

	Clients int // default 6, 5 for the semaphores
	// MaxLeases is the semaphore's limit: default 2 for Semaphore, always 1
	// for SemaphoreMutex, unused by the locks.
	MaxLeases      int
	SessionTimeout time.Duration // default 1.5 s
	// Recovery bounds the time after the last fault healed in which every
	// client must make progress (default 30 s plus the ensemble's
	// zktest.Cluster.ElectionBudget: the last fault may have cost the
	// ensemble its leader, and nobody progresses until it has a new one).
	Recovery time.Duration
	// Logf receives the nemesis log and progress notes (default: discarded).
	Logf func(format string, args ...any)
	// Faults are the kinds the nemesis draws from (default: every kind).
	Faults []FaultKind
	// Rounds, when positive, makes the nemesis inject exactly that many
	// rounds (each every kind of Faults once, in a seeded order), however
	// long they take: Duration neither cuts a round short nor adds one, so
	// that a shorter CAMPAIGN_SECS still meets every kind.
	Rounds int
}

func (c Config) withDefaults() (Config, error) {
	if c.Duration <= 0 {
		return c, fmt.Errorf("campaign: duration %v: must be positive", c.Duration)
	}
	switch c.Kind {
	case MutexLock, ReadWriteLock, ElectionLatch, ElectionSelector, Counter, TTLMutexLock, Discovery, Membership, Cache, Barrier, Queue:
	case Semaphore:
		if c.MaxLeases == 0 {
			c.MaxLeases = 2
		}
		if c.MaxLeases < 1 {
			return c, fmt.Errorf("campaign: maxLeases %d: must be at least 1", c.MaxLeases)
		}
	case SemaphoreMutex:
		if c.MaxLeases != 0 && c.MaxLeases != 1 {
			return c, fmt.Errorf("campaign: maxLeases %d: a semaphore mutex has exactly 1", c.MaxLeases)
		}
		c.MaxLeases = 1
	default:
		return c, fmt.Errorf("campaign: unknown lock kind %d", int(c.Kind))
	}
	if c.Clients == 0 {
		c.Clients = 6
		if c.Kind.leases() {
			c.Clients = 5
		}
	}
	if c.Kind.leases() && c.Clients <= c.MaxLeases {
		return c, fmt.Errorf("campaign: %d clients for %d leases: need more clients than leases to contend", c.Clients, c.MaxLeases)
	}
	if c.Clients < 2 {
		return c, fmt.Errorf("campaign: %d clients: need at least 2 to contend", c.Clients)
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = 1500 * time.Millisecond
	}
	if c.SessionTimeout < 400*time.Millisecond {
		return c, fmt.Errorf("campaign: session timeout %v: below the 400ms a 200ms tick allows", c.SessionTimeout)
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if len(c.Faults) == 0 {
		for k := range FaultKind(numFaultKinds) {
			if k != PauseClientProcess || c.Kind.freezable() {
				c.Faults = append(c.Faults, k)
			}
		}
	}
	for _, k := range c.Faults {
		if k < 0 || k >= numFaultKinds {
			return c, fmt.Errorf("campaign: fault kind %d: unknown", int(k))
		}
		if k == PauseClientProcess && !c.Kind.freezable() {
			return c, fmt.Errorf("campaign: fault %s with lock %s: %w", k, c.Kind, errNoContenders)
		}
	}
	return c, nil
}
